/**
 * A logger whose pino is made on its first need: a line at an enabled level, or anything beyond the
 * level checks, `child()` and dropped lines. `propbot backtest` makes a `warn` logger before every
 * run and most runs never warn; loading pino (and pino-pretty on a terminal) was ~20-30 ms of their
 * start-up. Until then it answers as pino would for its level; after, every access is pino's own.
 */
import type { Bindings, ChildLoggerOptions, Logger } from 'pino';

/** pino's standard levels; `silent` is above them all. */
const VALUES: Readonly<Record<string, number>> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 };

/** Levels this logger can answer for without pino: the standard ones and `silent`. */
export function isStandardLevel(level: string): boolean {
  return level === 'silent' || Object.hasOwn(VALUES, level);
}

const drop = (): void => {};

/** `level` is read on every question, so a child follows its parent's level as pino's children do. */
export function deferredLogger(level: () => string, make: () => Logger): Logger {
  let real: Logger | undefined;
  const materialize = (): Logger => (real ??= make());
  const bound = new Map<PropertyKey, { fn: (...args: unknown[]) => unknown; to: unknown }>();
  const threshold = (): number => {
    const now = level();
    return now === 'silent' ? Infinity : (VALUES[now] ?? NaN);
  };
  const isLevelEnabled = (name: string): boolean => Object.hasOwn(VALUES, name) && VALUES[name]! >= threshold();
  let self: Logger;
  const child = (bindings: Bindings, options?: ChildLoggerOptions): Logger =>
    options === undefined ? deferredLogger(() => self.level, () => materialize().child(bindings)) : materialize().child(bindings, options);
  const early = (key: PropertyKey): unknown => {
    if (typeof key !== 'string' || !isStandardLevel(level())) return undefined;
    if (key === 'silent' || (Object.hasOwn(VALUES, key) && VALUES[key]! < threshold())) return drop;
    if (key === 'level') return level();
    if (key === 'levelVal') return threshold();
    if (key === 'isLevelEnabled') return isLevelEnabled;
    if (key === 'child') return child;
    return undefined;
  };
  self = new Proxy({} as Logger, {
    get(_target, key) {
      if (real === undefined) {
        const answer = early(key);
        if (answer !== undefined) return answer;
      }
      const logger = materialize();
      const value = Reflect.get(logger, key, logger) as unknown;
      if (typeof value !== 'function') return value;
      // pino's methods read their state from `this`; bound once per method, not per call.
      const known = bound.get(key);
      if (known?.fn === value) return known.to;
      const to = (value as (...args: unknown[]) => unknown).bind(logger);
      bound.set(key, { fn: value as (...args: unknown[]) => unknown, to });
      return to;
    },
    set(_target, key, value) {
      return Reflect.set(materialize(), key, value);
    },
    has(_target, key) {
      return Reflect.has(materialize(), key);
    },
    ownKeys() {
      return Reflect.ownKeys(materialize());
    },
    getOwnPropertyDescriptor(_target, key) {
      const descriptor = Reflect.getOwnPropertyDescriptor(materialize(), key);
      // A proxy may not report a property its (empty) target lacks as non-configurable.
      return descriptor === undefined ? undefined : { ...descriptor, configurable: true };
    },
    getPrototypeOf() {
      return Reflect.getPrototypeOf(materialize());
    },
    deleteProperty(_target, key) {
      return Reflect.deleteProperty(materialize(), key);
    },
    defineProperty(_target, key, descriptor) {
      return Reflect.defineProperty(materialize(), key, descriptor);
    },
  });
  return self;
}
