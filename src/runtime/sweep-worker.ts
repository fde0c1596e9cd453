/**
 * One sweep worker thread: runs the backtests it is sent, one at a time, and answers each: a sweep
 * job with its row, a whole backtest with its result as text.
 */
import { parentPort } from 'node:worker_threads';
import { runBacktestJob } from './backtest-job.js';
import type { PoolAnswer, PoolTask } from './sweep-pool.js';
import { runSweepJob } from './sweep-job.js';

parentPort!.on('message', (task: PoolTask) => {
  const answer: Promise<PoolAnswer> =
    task.kind === 'sweep'
      ? runSweepJob(task.job).then((row) => ({ kind: 'sweep', row }))
      : runBacktestJob(task.job).then(
          (text) => ({ kind: 'backtest', text }),
          (err: unknown) => ({ kind: 'backtest', error: err instanceof Error ? err.message : String(err) }),
        );
  void answer.then((a) => parentPort!.postMessage(a));
});
