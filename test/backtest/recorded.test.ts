import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Dec } from '../../src/core/decimal.js';
import { StoreSnapshotReader } from '../../src/feed/files/store-snapshots.js';
import { runBacktest } from '../../src/runtime/backtest.js';
import { Store } from '../../src/store/store.js';
import { runHere } from '../daemon/in-process.js';
import { REPO, tempDir } from './helpers.js';

const ORCL = path.join(REPO, 'backtest/data/pyalgotrade-orcl-2001-daily.csv');

describe('replaying what the daemon recorded', () => {
  it('a paper session records market snapshots that the backtester replays from the store file', async () => {
    const dir = tempDir();
    const db = path.join(dir, 'session.db');
    const yaml = `
mode: paper
paper:
  markets: [{ asset: ORCL, file: ${ORCL}, category: rwa }]
  speed: 0
  to: 2001-04-01
  preset: zero-cost
strategies:
  - use: sma-cross
    params: { asset: ORCL, period: 1D, fast: 3, slow: 8, leverage: "1", allowShort: false }
risk: { marketStatus: { pauseLeadMs: 0 } }
`;
    expect(await runHere(yaml, dir, db)).toBe(0);

    const store = await Store.open({ file: db });
    const recorded = await store.snapshots('ORCL');
    // Every order change and position event of the session is in the store too, with its fills.
    const events = await store.query<{ event_name: string; n: number }>('SELECT event_name, COUNT(*) AS n FROM position_events GROUP BY event_name');
    const orders = await store.query<{ status: string; n: number }>('SELECT status, COUNT(*) AS n FROM orders GROUP BY status');
    await store.close();
    expect(Object.fromEntries(events.map((e) => [e.event_name, e.n]))).toMatchObject({ increasePosition: expect.any(Number), closePosition: expect.any(Number) });
    expect(orders.find((o) => o.status === 'executed')?.n).toBeGreaterThan(0);
    expect(recorded.length).toBeGreaterThan(100);

    // Read as 1-tick candles, oldest first, in pages smaller than the recording.
    const reader = new StoreSnapshotReader(db, { asset: 'ORCL', pageSize: 50 });
    const rows = [];
    for await (const row of reader) rows.push(row);
    expect(rows.map((r) => r.time)).toEqual([...new Set(recorded.map((s) => s.takenAt))]);
    expect(rows[0]!.close).toBe(recorded[0]!.indexPrice.toFixed());

    // The same strategy over the recording trades on the prices the session saw.
    const { result, stats } = await runBacktest({
      markets: [{ asset: 'ORCL', file: db, category: 'rwa', preset: 'zero-cost' }],
      strategies: [{ use: 'sma-cross', params: { asset: 'ORCL', period: '1D', fast: 3, slow: 8, leverage: '1', allowShort: false } }].map((s) => ({ ...s, use: path.join(REPO, 'strategies/sma-cross.ts') })),
      balance: new Dec(100000),
      risk: { marketStatus: { pauseLeadMs: 0 } },
    });
    expect(stats.ticks).toBe(rows.length);
    expect(result.fills.length).toBeGreaterThan(0);
  });

  it('a store without snapshots of the asked market is refused with the file named', async () => {
    const dir = tempDir();
    const db = path.join(dir, 'empty.db');
    await (await Store.open({ file: db })).close();
    const reader = new StoreSnapshotReader(db, { asset: 'BTC' });
    await expect(async () => {
      for await (const _ of reader) void _;
    }).rejects.toThrow(/empty\.db: expected market snapshots of BTC, got none/);
  });
});
