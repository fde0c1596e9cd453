/**
 * When a sweep's default worker count adds a worker. Each worker thread compiles propbot's hot path for
 * itself: seconds of CPU over its first runs, on the cores the running workers use too (on 2 cores one
 * worker already keeps ~1.5 busy). So another worker pays only when the runs left are many or long
 * enough to repay its warm-up. The first worker's own runs measure both: what a warm run costs (the
 * fastest of the last few) and what its warm-up cost beyond that, which the next worker pays again.
 */

/** One run of the first worker, while it ran alone: its wall time and the process's CPU time (every thread). */
export interface RunSample {
  readonly wallMs: number;
  readonly cpuMs: number;
}

/** Runs measured before any decision: the first few are all warm-up. */
export const MIN_SAMPLES = 4;

/**
 * Whether `workers + 1` workers would finish `remaining` runs clearly sooner (by a tenth) than
 * `workers`. With one more, the runs left take at least their warm cost spread over the workers, plus
 * the new worker's warm-up; and at least all their CPU (the warm-up's included) spread over the cores.
 */
export function anotherWorkerPays(samples: readonly RunSample[], remaining: number, workers: number, cores: number): boolean {
  if (samples.length < MIN_SAMPLES || remaining <= workers) return false;
  const recent = samples.slice(-3);
  const warmWall = Math.min(...recent.map((s) => s.wallMs));
  const warmCpu = Math.min(...recent.map((s) => s.cpuMs));
  let warmUpWall = 0;
  let warmUpCpu = 0;
  for (const s of samples) {
    warmUpWall += Math.max(0, s.wallMs - warmWall);
    warmUpCpu += Math.max(0, s.cpuMs - warmCpu);
  }
  const now = (remaining * warmWall) / workers;
  const more = Math.max((remaining * warmWall + warmUpWall) / (workers + 1), (remaining * warmCpu + warmUpCpu) / cores);
  return more < 0.9 * now;
}
