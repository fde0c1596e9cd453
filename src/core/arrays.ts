/**
 * Empty arrays made the way V8 will hold them once filled. A literal `[]` starts as an array of small
 * integers, and V8 does not remember, for an empty literal, that its arrays became arrays of objects
 * (or of doubles) at their first push: every new one makes that change again. Compiled code that met
 * only the filled kind at a push, a length or an index then meets the empty kind and is thrown away
 * ("wrong map", "not a Smi"), each run anew: a backtest's engine, guard and replay make their lists
 * for each run, and a sweep's worker kept compiling them again run after run (the thirteenth round
 * of docs/performance-log.md). An array copied from an empty one of the right kind has that kind.
 */

const OBJECTS: unknown[] = [null];
OBJECTS.pop();
const DOUBLES: number[] = [0.5];
DOUBLES.pop();

/** An empty array for objects (and bigints, strings, anything not a number). */
export function objectArray<T>(): T[] {
  return OBJECTS.slice() as T[];
}

/**
 * The items of `list` that `keep` accepts, in an array for objects whatever `list` is:
 * `Array#filter`'s result takes its input's kind, and a list read back empty is often a literal `[]`
 * (an array of small integers), so the same filter gave lists of two kinds.
 */
export function objectsWhere<T>(list: readonly T[], keep: (item: T) => boolean): T[] {
  const out = objectArray<T>();
  for (const item of list) if (keep(item)) out.push(item);
  return out;
}

/** An empty array for numbers that are not all small integers (times in ms, prices). */
export function doubleArray(): number[] {
  return DOUBLES.slice();
}
