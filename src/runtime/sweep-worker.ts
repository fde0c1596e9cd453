/**
 * One sweep worker thread: runs the backtests it is sent, one at a time, and answers with the rows.
 */
import { parentPort } from 'node:worker_threads';
import { runSweepJob } from './sweep-job.js';
import type { SweepJob } from './sweep.js';

parentPort!.on('message', (job: SweepJob) => {
  void runSweepJob(job).then((row) => parentPort!.postMessage(row));
});
