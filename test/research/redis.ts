/**
 * A real redis-server for the queue tests: Debian's package (`.ci/run` installs it), on 127.0.0.1 at a
 * free port, no persistence, stopped by the test. `findRedisServer()` says why when it cannot be found.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';

export function findRedisServer(): string | null {
  for (const dir of (process.env['PATH'] ?? '').split(path.delimiter).concat(['/usr/bin', '/usr/sbin', '/usr/local/bin'])) {
    const file = path.join(dir, 'redis-server');
    if (dir && existsSync(file)) return file;
  }
  return null;
}

/** The redis-server binary, or null after one line saying which tests skip and why. */
export function redisServerFor(what: string): string | null {
  const binary = findRedisServer();
  if (!binary) console.warn(`skipping ${what}: redis-server not found (Debian: apt-get install redis-server; .ci/run installs it)`);
  return binary;
}

/** In a describe block: a redis-server started before its tests and stopped after them. */
export function redisForTests(binary: string | null): () => RedisServer {
  let redis: RedisServer | undefined;
  beforeAll(async () => {
    redis = await startRedis(binary!);
  });
  afterAll(async () => {
    await redis?.stop();
  });
  return () => redis!;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface RedisServer {
  readonly url: string;
  readonly port: number;
  stop(): Promise<void>;
}

/** On `port` when given (a worker already waiting there), else a free one. */
export async function startRedis(binary: string, port?: number): Promise<RedisServer> {
  port ??= await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), 'pb-redis-'));
  const child: ChildProcess = spawn(binary, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`redis-server did not start: ${out}`)), 15_000);
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      if (out.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${code}: ${out}`));
    });
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    // Its folder goes with it: the bench starts it outside the tests' own temporary root.
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }).then(() => rmSync(dir, { recursive: true, force: true })),
  };
}
