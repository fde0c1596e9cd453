/**
 * pino loggers for every part. JSON lines by default (for files and log shippers), readable lines on
 * a terminal. Secrets are redacted by key name wherever they sit in a logged object, and any known
 * secret value (an API key read from the environment, see `registerSecret`) is scrubbed from every line
 * as a last line of defence, because one leaked key costs a trader their account. `redactText` is that
 * same scrubbing for plain text: the CLI passes everything it prints through it.
 */
import { createRequire } from 'node:module';
import { Writable } from 'node:stream';
import type { DestinationStream, Logger, LoggerOptions, pino as Pino } from 'pino';
import { deferredLogger, isStandardLevel } from './deferred-logger.js';

export type { Logger } from 'pino';

export const REDACT_PATHS = [
  'apiKey',
  'api_key',
  'authorization',
  'Authorization',
  'token',
  'adminToken',
  'password',
  'secret',
  '*.apiKey',
  '*.api_key',
  '*.authorization',
  '*.Authorization',
  '*.token',
  '*.adminToken',
  '*.password',
  '*.secret',
  'headers.authorization',
  'headers.Authorization',
  '*.headers.authorization',
  '*.headers.Authorization',
];

export interface LoggerConfig {
  level?: string;
  /** `json` (default), `pretty`, or `auto` (pretty on a terminal). */
  format?: 'json' | 'pretty' | 'auto';
  /** Values scrubbed from every line wherever they appear (e.g. the API key itself). */
  secrets?: readonly string[];
  /** Destination; stdout by default. */
  destination?: NodeJS.WritableStream;
  name?: string;
  /** Clock of each line's `time` (a backtest logs in market time); default the wall clock. */
  now?: () => number;
  /** Fields added to every line (the daemon adds the market time `mt`). */
  mixin?: () => Record<string, unknown>;
}

/**
 * Required when a logger first needs pino, not imported: pino and its dependencies cost ~20 ms to
 * load, a backtest without `--log` never logs (its parts get `silentLogger`), and one at the CLI's
 * `warn` seldom does (deferred-logger.ts).
 */
let loadedPino: typeof Pino | undefined;
function pinoModule(): typeof Pino {
  loadedPino ??= (createRequire(import.meta.url)('pino') as { pino: typeof Pino }).pino;
  return loadedPino;
}

export function createLogger(config: LoggerConfig = {}): Logger {
  const destination = config.destination ?? process.stdout;
  const format =
    config.format === 'auto' ? ((destination as NodeJS.WriteStream).isTTY ? 'pretty' : 'json') : (config.format ?? 'json');
  const level = config.level ?? 'info';
  for (const s of config.secrets ?? []) registerSecret(s);
  // Decided now, as when pino was made here: a secret registered later does not add the scrubbing sink.
  const scrub = KNOWN_SECRETS.size > 0;
  const make = (): Logger => {
    const pino = pinoModule();
    const options: LoggerOptions = {
      level,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      base: config.name ? { name: config.name } : null,
      timestamp: config.now ? marketTime(config.now) : pino.stdTimeFunctions.isoTime,
      ...(config.mixin ? { mixin: config.mixin } : {}),
    };
    let sink: NodeJS.WritableStream = destination;
    if (format === 'pretty') sink = prettyStream(destination, config.now ? 'UTC:yyyy-mm-dd HH:MM:ss' : 'SYS:HH:MM:ss.l');
    if (scrub) sink = scrubbing(sink);
    return pino(options, sink as DestinationStream);
  };
  // Another level is pino's to accept or refuse, at once.
  return isStandardLevel(level) ? deferredLogger(() => level, make) : make();
}

/** Secret values of this process (API keys read from the environment); every scrubbed line hides them. */
const KNOWN_SECRETS = new Set<string>();

/**
 * Remember a secret value so that loggers and every line the CLI prints replace it with `[redacted]`
 * from now on. Values under 4 characters are ignored (they would mangle ordinary text).
 */
export function registerSecret(value: string | undefined): void {
  const v = value?.trim();
  if (v !== undefined && v.length >= 4) KNOWN_SECRETS.add(v);
}

/** A bearer token, but not a placeholder such as `Bearer <API key>` in a help text. */
const BEARER = /\b(Bearer\s+)(?![<[])[^\s"',;]+/gi;

/** `text` with every registered secret and any `Bearer <token>` replaced by `[redacted]`. */
export function redactText(text: string): string {
  let out = text;
  for (const s of KNOWN_SECRETS) if (out.includes(s)) out = out.split(s).join('[redacted]');
  return /bearer/i.test(out) ? out.replace(BEARER, '$1[redacted]') : out;
}

function marketTime(now: () => number): () => string {
  return () => `,"time":"${new Date(now()).toISOString()}"`;
}

function prettyStream(destination: NodeJS.WritableStream, translateTime: string): NodeJS.WritableStream {
  // Required, not imported, because creating a logger is synchronous; JSON-only runs never load it.
  const require = createRequire(import.meta.url);
  const build = require('pino-pretty') as (opts: Record<string, unknown>) => NodeJS.WritableStream;
  return build({ destination, colorize: (destination as NodeJS.WriteStream).isTTY ?? false, translateTime, ignore: 'pid,hostname,name', singleLine: true });
}

function scrubbing(target: NodeJS.WritableStream): NodeJS.WritableStream {
  return new Writable({
    write(chunk: Buffer | string, _enc, done) {
      target.write(redactText(chunk.toString()), done as (err?: Error | null) => void);
    },
  });
}

export { silentLogger } from './silent-logger.js';
