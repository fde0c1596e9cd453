/**
 * Preloaded into a process the bench starts (`node --import ./bench/usage-at-exit.mjs …`): at exit the
 * main thread prints the CPU time (user + system) and the peak resident memory of the whole process,
 * its worker threads included, as one JSON line on stderr: `{"cpuMs":1234,"peakRssMb":321.5}`. The CPU
 * time is what a wall-clock figure on a shared machine cannot say.
 */
import { isMainThread } from 'node:worker_threads';

if (isMainThread) {
  process.on('exit', () => {
    const u = process.cpuUsage();
    process.stderr.write(`${JSON.stringify({ cpuMs: (u.user + u.system) / 1000, peakRssMb: process.resourceUsage().maxRSS / 1024 })}\n`);
  });
}
