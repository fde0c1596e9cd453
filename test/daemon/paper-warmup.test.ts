/**
 * A paper run with a warm-up starts recording where it starts trading: the account's equity is in the
 * store from the first step after the warm-up, though no position, order or new day would publish the
 * account there (the warm-up's own steps are history and not recorded).
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Store } from '../../src/store/store.js';
import { COINBASE_BTC_1H as DATA } from '../data.js';
import { tempDir } from './helpers.js';
import { runHere } from './in-process.js';

const { dir, cleanup } = tempDir('pb-paper-warmup-');
afterAll(cleanup);

describe('a paper run after its warm-up', () => {
  it('records the account from its first step, where nothing else would publish it', async () => {
    const db = path.join(dir, 'warm.db');
    // 05:00-08:59 on 4 May 2019: no midnight, and the 10/30 hourly averages do not cross (no order).
    const yaml = `
mode: paper
paper:
  markets: [{ asset: BTC, file: ${DATA} }]
  from: 2019-05-04T05:00:00Z
  to: 2019-05-04T09:00:00Z
  warmup: 50
  speed: 0
strategies:
  - use: sma-cross
    params: { asset: BTC, period: 1h, fast: 10, slow: 30 }
`;
    expect(await runHere(yaml, dir, db)).toBe(0);
    const store = await Store.open({ file: db });
    const accounts = await store.query<{ account_id: string }>('SELECT DISTINCT account_id FROM equity_samples');
    const orders = await store.query<{ n: number }>('SELECT COUNT(*) AS n FROM orders');
    const equity = accounts.length === 1 ? await store.equity(accounts[0]!.account_id) : [];
    await store.close();
    expect(orders[0]!.n).toBe(0);
    expect(accounts).toHaveLength(1);
    expect(equity[0]).toMatchObject({ at: Date.parse('2019-05-04T05:00:00Z') });
    expect(equity[0]!.equity.toString()).toBe('100000');
    // Nothing before the session started: the warm-up's steps are not part of what it saw.
    expect(equity.every((e) => e.at >= Date.parse('2019-05-04T05:00:00Z'))).toBe(true);
  });
});
