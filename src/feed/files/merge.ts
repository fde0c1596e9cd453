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

/**
 * Merge sources by `timeOf(row)` (default `row.time`). A source that goes back in time is a
 * programming error in that source and throws, naming it.
 */
export async function* mergeByTime<R>(
  sources: readonly MergeSource<R>[],
  timeOf: (row: R) => number = (row) => (row as { time: number }).time,
): AsyncGenerator<MergedRow<R>> {
  const iterators = sources.map((s) => s.rows[Symbol.asyncIterator]());
  const heap: Head<R>[] = [];
  const lastTime = sources.map(() => -Infinity);
  const push = (h: Head<R>) => {
    heap.push(h);
    let i = heap.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!before(heap[i]!, heap[p]!)) break;
      [heap[i], heap[p]] = [heap[p]!, heap[i]!];
      i = p;
    }
  };
  const pop = (): Head<R> => {
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
    return top;
  };
  const pull = async (source: number) => {
    const next = await iterators[source]!.next();
    if (next.done) return;
    const time = timeOf(next.value);
    if (!(time >= lastTime[source]!)) {
      throw new RangeError(`mergeByTime: source ${source} (${sources[source]!.key}) went back in time: ${time} after ${lastTime[source]}`);
    }
    lastTime[source] = time;
    push({ time, source, row: next.value });
  };
  let finished = false;
  try {
    for (let s = 0; s < iterators.length; s++) await pull(s);
    while (heap.length > 0) {
      const h = pop();
      yield { key: sources[h.source]!.key, source: h.source, row: h.row };
      await pull(h.source);
    }
    finished = true;
  } finally {
    if (!finished) {
      // stopped early (break or error): let every source close its file
      await Promise.allSettled(iterators.map((it) => it.return?.()));
    }
  }
}
