/**
 * Child process of the crash test: writes rounds to a store as fast as it can until it is killed.
 * Each round is one batch: K equity samples, a strategy-state marker and an idempotency key row.
 * Usage: node --import tsx test/store/crash-child.ts <db file> <rows per round>
 */
import { Dec } from '../../src/core/decimal.js';
import { Store } from '../../src/store/store.js';

const [file, perRoundText] = process.argv.slice(2);
if (!file || !perRoundText) {
  process.stderr.write('usage: crash-child.ts <db file> <rows per round>\n');
  process.exit(2);
}
const perRound = Number(perRoundText);
// Large batch bound and interval: a round is committed only by its explicit flush, as one transaction.
const store = await Store.open({ file, flushIntervalMs: 60_000, maxBatchRows: 1_000_000, synchronous: 'NORMAL' });
const state = await store.strategyState('crash');
let round = (state.get<number>('round') ?? -1) + 1;
process.stdout.write(`start ${round}\n`);
for (;;) {
  for (let i = 0; i < perRound; i += 1) {
    store.recordEquity({ accountId: 'crash', at: round * perRound + i, equity: new Dec(`${round}.${i}00000001`), balance: null });
  }
  state.set('round', round);
  await store.beginRequest({
    key: `crash-${round}`,
    intentId: `intent-${round}`,
    step: 'create',
    operation: 'createOrder',
    args: [{ amount: new Dec(round) }],
    storedAt: round,
    attempts: 0,
    outcome: 'pending',
  });
  if (round % 10 === 0) process.stdout.write(`round ${round}\n`);
  round += 1;
}
