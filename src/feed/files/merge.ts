/**
 * Several markets in one run: a k-way merge of time-ordered row sources into one time-ordered
 * stream. Rows with the same time come out in the order of the sources (market order), so a replay
 * is deterministic. Holds one pending row per source.
 */

export interface MergeSource<R> {
  /** The market (or any label) the rows belong to. */
  readonly key: string;
  readonly rows: AsyncIterable<R>;
}

export interface SyncMergeSource<R> {
  readonly key: string;
  readonly rows: Iterable<R>;
}

export interface MergedRow<R> {
  readonly key: string;
  /** Index of the source in the list given to `mergeByTime`. */
  readonly source: number;
  readonly row: R;
}

interface Head<R> {
  time: number;
  source: number;
  row: R;
}

function before<R>(a: Head<R>, b: Head<R>): boolean {
  return a.time < b.time || (a.time === b.time && a.source < b.source);
}

/** The check that a source never goes back in time: if one does, that is a programming error in it. */
export class SourceOrder {
  readonly #key: string;
  readonly #source: number;
  #last = Number.NEGATIVE_INFINITY;

  constructor(key: string, source = 0) {
    this.#key = key;
    this.#source = source;
  }

  check(time: number): void {
    if (!(time >= this.#last)) throw new RangeError(`rows of source ${this.#source} (${this.#key}) went back in time: ${time} after ${this.#last}`);
    this.#last = time;
  }
}

/** The heap of one pending row per source, and the check that no source goes back in time. */
class TimeMerge<R> {
  readonly #keys: readonly string[];
  readonly #timeOf: (row: R) => number;
  readonly #heap: Head<R>[] = [];
  readonly #order: SourceOrder[];

  constructor(keys: readonly string[], timeOf: (row: R) => number) {
    this.#keys = keys;
    this.#timeOf = timeOf;
    this.#order = keys.map((key, source) => new SourceOrder(key, source));
  }

  get size(): number {
    return this.#heap.length;
  }

  /** The next row of `source`, or nothing at its end. */
  offer(source: number, next: IteratorResult<R>): void {
    if (next.done) return;
    const time = this.#timeOf(next.value);
    this.#order[source]!.check(time);
    const heap = this.#heap;
    heap.push({ time, source, row: next.value });
    let i = heap.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!before(heap[i]!, heap[p]!)) break;
      [heap[i], heap[p]] = [heap[p]!, heap[i]!];
      i = p;
    }
  }

  /** The earliest pending row, out of the heap. */
  take(): MergedRow<R> {
    const heap = this.#heap;
    const top = heap[0]!;
    const end = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = end;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < heap.length && before(heap[l]!, heap[m]!)) m = l;
        if (r < heap.length && before(heap[r]!, heap[m]!)) m = r;
        if (m === i) break;
        [heap[i], heap[m]] = [heap[m]!, heap[i]!];
        i = m;
      }
    }
    return { key: this.#keys[top.source]!, source: top.source, row: top.row };
  }
}

const byRowTime = <R>(row: R): number => (row as { time: number }).time;

/**
 * Merge sources by `timeOf(row)` (default `row.time`). A source that goes back in time is a
 * programming error in that source and throws, naming it.
 */
export async function* mergeByTime<R>(sources: readonly MergeSource<R>[], timeOf: (row: R) => number = byRowTime): AsyncGenerator<MergedRow<R>> {
  const iterators = sources.map((s) => s.rows[Symbol.asyncIterator]());
  const merge = new TimeMerge<R>(sources.map((s) => s.key), timeOf);
  let finished = false;
  try {
    for (let s = 0; s < iterators.length; s++) merge.offer(s, await iterators[s]!.next());
    while (merge.size > 0) {
      const next = merge.take();
      yield next;
      merge.offer(next.source, await iterators[next.source]!.next());
    }
    finished = true;
  } finally {
    if (!finished) {
      // stopped early (break or error): let every source close its file
      await Promise.allSettled(iterators.map((it) => it.return?.()));
    }
  }
}

/** `mergeByTime` over synchronous sources: a merged row costs no promise. */
export function* mergeByTimeSync<R>(sources: readonly SyncMergeSource<R>[], timeOf: (row: R) => number = byRowTime): Generator<MergedRow<R>> {
  const iterators = sources.map((s) => s.rows[Symbol.iterator]());
  const merge = new TimeMerge<R>(sources.map((s) => s.key), timeOf);
  let finished = false;
  try {
    for (let s = 0; s < iterators.length; s++) merge.offer(s, iterators[s]!.next());
    while (merge.size > 0) {
      const next = merge.take();
      yield next;
      merge.offer(next.source, iterators[next.source]!.next());
    }
    finished = true;
  } finally {
    if (!finished) for (const it of iterators) it.return?.();
  }
}
