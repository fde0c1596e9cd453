/**
 * One market replays its rows straight from its source, without the merge of several markets: the
 * source is still closed when a run stops early, and a source whose rows go back in time is still
 * refused, naming its market.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Dec } from '../../src/core/decimal.js';
import type { ReplayRow } from '../../src/feed/files/types.js';
import { LocalSession } from '../../src/runtime/local-session.js';
import { recordCandles, RecordedCandles } from '../../src/runtime/recorded-candles.js';
import { REPO } from './helpers.js';
import { COINBASE_BTC_1H } from '../data.js';


/** The file's rows as a source that counts how often its iterator was closed. */
class CountingSource extends RecordedCandles {
  readonly #rows: readonly ReplayRow[];
  closed = 0;

  constructor(from: RecordedCandles, rows: readonly ReplayRow[]) {
    super(from.summary, rows);
    this.#rows = rows;
  }

  override async openReplay(): Promise<Iterable<ReplayRow>> {
    const rows = this.#rows[Symbol.iterator]();
    return {
      [Symbol.iterator]: () => ({
        next: () => rows.next(),
        return: () => {
          this.closed += 1;
          return { value: undefined, done: true as const };
        },
      }),
    };
  }
}

async function session(source: RecordedCandles): Promise<LocalSession> {
  return LocalSession.create({
    markets: [{ asset: 'BTC', file: COINBASE_BTC_1H, source }],
    strategies: [{ use: path.join(REPO, 'strategies/sma-cross.ts'), params: { asset: 'BTC', period: '1h' } }],
    balance: new Dec(100_000),
    cwd: REPO,
  });
}

describe('one market', () => {
  it('closes its source when the run stops early', async () => {
    const recorded = (await recordCandles(COINBASE_BTC_1H, undefined, undefined, undefined))!;
    const rows = [...(await recorded.openReplay())];
    const source = new CountingSource(recorded, rows);
    const s = await session(source);
    const controller = new AbortController();
    const stats = await s.run({ signal: controller.signal, afterStep: (step) => step.time >= rows[100]!.time && controller.abort() });
    await s.finish();
    expect(stats.aborted).toBe(true);
    expect(stats.candles).toBe(101);
    expect(source.closed).toBe(1);
  });

  it('refuses a source whose rows go back in time, naming its market', async () => {
    const recorded = (await recordCandles(COINBASE_BTC_1H, undefined, undefined, undefined))!;
    const rows = [...(await recorded.openReplay())].slice(0, 50);
    // the 31st row again after the 40th
    const source = new CountingSource(recorded, [...rows.slice(0, 40), rows[30]!, ...rows.slice(40)]);
    const s = await session(source);
    await expect(s.run()).rejects.toThrow(`rows of source 0 (BTC) went back in time: ${rows[30]!.time} after ${rows[39]!.time}`);
    await s.finish();
  });
});
