/**
 * The address of the Redis a distributed sweep queues its runs on: `redis://[user:password@]HOST[:PORT][/DB]`.
 * One reading of it for the `--queue` flag, a scenario's `research.queue` and `propbot worker`, so a URL
 * one of them accepts the others accept too.
 */
import { ConfigError } from './errors.js';

export interface RedisAddress {
  readonly host: string;
  readonly port: number;
  readonly db: number;
  readonly username?: string;
  readonly password?: string;
}

/** What is wrong with `url` as a queue address, or null when nothing is. */
export function redisUrlProblem(url: string): string | null {
  const shape = `expected redis://HOST:PORT[/DB], got ${JSON.stringify(url)}`;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return shape;
  }
  if (u.protocol !== 'redis:' || !u.hostname || u.search || u.hash) return shape;
  if (u.pathname.length > 1 && !/^\/\d+$/.test(u.pathname)) return `the database in ${JSON.stringify(url)} must be a whole number (redis://HOST:PORT/2)`;
  return null;
}

/** The parts of a queue address; a ConfigError at `where` (`--queue`, `research.queue`) when it is not one. */
export function parseRedisUrl(url: string, where = '--queue'): RedisAddress {
  const problem = redisUrlProblem(url);
  if (problem !== null) throw new ConfigError(where, problem);
  const u = new URL(url);
  return {
    host: u.hostname,
    port: u.port ? Number(u.port) : 6379,
    db: u.pathname.length > 1 ? Number(u.pathname.slice(1)) : 0,
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
  };
}

/** The URL with its password hidden, for logs and errors. */
export function redactRedisUrl(url: string): string {
  return url.replace(/\/\/([^@/]*)@/, (_m, auth: string) => `//${auth.includes(':') ? `${auth.split(':')[0]}:***` : '***'}@`);
}
