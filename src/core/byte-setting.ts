/**
 * A size in bytes given by an environment variable (a cap on downloads, on the rows cache): a whole
 * number, or unset for the default. Anything else is a ConfigError naming the variable and its value.
 */
import { ConfigError } from './errors.js';

export function byteSetting(name: string, fallback: number, env: Record<string, string | undefined> = process.env): number {
  const text = env[name];
  if (text === undefined || text === '') return fallback;
  const n = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(n) || n < 1) throw new ConfigError(name, `expected a whole number of bytes, got ${JSON.stringify(text)}`);
  return n;
}
