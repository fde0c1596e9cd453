/**
 * Print one benchmark figure as the JSON line every bench uses; `runs` says how many runs its median
 * is of (the machine is shared, so one run says little).
 */
export function report(bench: string, value: number, unit: string, runs?: number): void {
  const rounded = Math.abs(value) >= 100 ? Math.round(value) : Number(value.toPrecision(4));
  process.stdout.write(`${JSON.stringify({ bench, value: rounded, unit, ...(runs !== undefined ? { runs } : {}) })}\n`);
}

/**
 * A figure measured once per run: its median, with the slowest and fastest run beside it (`min`,
 * `max`), so a reader sees how much the machine moved while it was measured.
 */
export function reportRuns(bench: string, values: readonly number[], unit: string): void {
  const round = (v: number): number => (Math.abs(v) >= 100 ? Math.round(v) : Number(v.toPrecision(4)));
  const line = { bench, value: round(median(values)), unit, runs: values.length, min: round(Math.min(...values)), max: round(Math.max(...values)) };
  process.stdout.write(`${JSON.stringify(line)}\n`);
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
