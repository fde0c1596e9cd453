/**
 * The false kill switch of issue 11: the SMA crossover on the shipped ORCL 2001 daily candles, zero-cost,
 * balance 1000. The replay publishes each step's risk snapshot before its market snapshot, so a guard
 * that marked the risk snapshot's equity forward from the price it knew on arrival counted every move
 * twice and flattened both positions (2001-04-23 and 2001-05-21) on a figure the engine never had.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Dec } from '../../src/core/decimal.js';
import { LocalSession } from '../../src/runtime/local-session.js';
import { fromRaw } from '../../src/risk/fixed.js';
import type { OrderIntent } from '../../src/strategy/intents.js';
import { REPO } from '../backtest/helpers.js';

describe('guard equity on the ORCL 2001 zero-cost SMA run', () => {
  it('equals the engine equity at every step, and the kill switch never fires', async () => {
    const session = await LocalSession.create({
      markets: [{ asset: 'ORCL', file: path.join(REPO, 'backtest/data/pyalgotrade-orcl-2001-daily.csv'), category: 'rwa', preset: 'zero-cost' }],
      strategies: [
        {
          use: path.join(REPO, 'strategies/sma-cross.ts'),
          params: { asset: 'ORCL', period: '1D', fast: 5, slow: 20, amount: '200', leverage: '1', stopPercent: '0.2', allowShort: false },
        },
      ],
      balance: new Dec(1000),
      risk: { marketStatus: { pauseLeadMs: 0 } },
      cwd: REPO,
    });
    const guardIntents: OrderIntent[] = [];
    session.guard.intents$.subscribe((i) => guardIntents.push(i));
    let compared = 0;
    let withPositions = 0;
    const gaps: string[] = [];
    await session.run({
      afterStep: (step) => {
        const engine = session.engine.accountFigures(session.accountId)!;
        const guard = session.guard.accountView(session.accountId)!;
        compared += 1;
        if (engine.exposure.size > 0) withPositions += 1;
        if (!guard.equity.eq(fromRaw(engine.equity))) {
          gaps.push(`${new Date(step.time).toISOString()}: guard ${guard.equity} engine ${fromRaw(engine.equity)}`);
        }
      },
    });
    await session.finish();
    expect(gaps.slice(0, 5)).toEqual([]);
    expect(guardIntents.map((i) => i.note)).toEqual([]);
    // The run held positions for a good part of the year: the comparison covered marked equity.
    expect(compared).toBeGreaterThan(900);
    expect(withPositions).toBeGreaterThan(20);
  });
});
