/**
 * The logger parts fall back to when given none (libraries default to it so they never print
 * uninvited). It drops everything without pino: a backtest that never logs then never loads pino,
 * which is ~18 ms of its start-up. Strategies get it as `ctx.log`, so it keeps the whole pino
 * `Logger` surface a plugin may touch: `child()` is itself, nothing is enabled, `flush` calls back.
 */
import { EventEmitter } from 'node:events';
import type { Bindings, ChildLoggerOptions, LevelMapping, LevelWithSilentOrString, LogFn, Logger } from 'pino';

const drop: LogFn = () => {};

/** pino's own level table, so `levels` reads as a silent pino logger's would. */
const LEVELS: LevelMapping = {
  values: { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 },
  labels: { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' },
};

class SilentLogger extends EventEmitter implements Logger {
  readonly version = 'silent';
  levels = LEVELS;
  useLevelLabels = false;
  levelVal = Infinity;
  level: LevelWithSilentOrString = 'silent';
  msgPrefix = '';
  customLevels = {};
  useOnlyCustomLevels = false;
  fatal = drop;
  error = drop;
  warn = drop;
  info = drop;
  debug = drop;
  trace = drop;
  silent = drop;
  onChild = (): void => {};
  child<ChildCustomLevels extends string = never>(_bindings: Bindings, options?: ChildLoggerOptions<ChildCustomLevels>): Logger<ChildCustomLevels> {
    const custom = options?.customLevels;
    if (custom === undefined) return this as unknown as Logger<ChildCustomLevels>;
    // As pino's child: the custom levels are methods too (here dropping, like the rest).
    const child = Object.create(this) as Record<string, unknown>;
    for (const name of Object.keys(custom)) child[name] = drop;
    return child as unknown as Logger<ChildCustomLevels>;
  }
  isLevelEnabled(): boolean {
    return false;
  }
  bindings(): Bindings {
    return {};
  }
  setBindings(): void {}
  flush(cb?: (err?: Error) => void): void {
    cb?.();
  }
}

export const silentLogger: Logger = new SilentLogger();
