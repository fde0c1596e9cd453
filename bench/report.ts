/**
 * Print one benchmark figure as the JSON line every bench uses; `runs` says how many runs its median
 * is of (the machine is shared, so one run says little).
 */
export function report(bench: string, value: number, unit: string, runs?: number): void {
  process.stdout.write(`${JSON.stringify({ bench, value: shown(value), unit, ...(runs !== undefined ? { runs } : {}) })}\n`);
}

/**
 * A figure measured once per run: its median, with the lowest and highest run beside it (`min`,
 * `max`), so a reader sees how much the machine moved while it was measured.
 */
export function reportRuns(bench: string, values: readonly number[], unit: string): void {
  const line = { bench, value: shown(median(values)), unit, runs: values.length, min: shown(Math.min(...values)), max: shown(Math.max(...values)) };
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

/** A figure as the lines print it: whole from 100 up, four significant digits below. */
function shown(value: number): number {
  return Math.abs(value) >= 100 ? Math.round(value) : Number(value.toPrecision(4));
}

/** How many runs a figure is the median of: BENCH_RUNS, default 3. */
export function runs(): number {
  const n = Number(process.env['BENCH_RUNS'] ?? 3);
  if (!Number.isInteger(n) || n < 1) throw new Error(`BENCH_RUNS: expected a whole number ≥ 1, got ${JSON.stringify(process.env['BENCH_RUNS'])}`);
  return n;
}

export function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}
