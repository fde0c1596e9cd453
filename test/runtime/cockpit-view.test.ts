import { describe, expect, it } from 'vitest';
import { Dec } from '../../src/core/decimal.js';
import type { Position } from '../../src/api/types.js';
import { positionFigures } from '../../src/runtime/cockpit/view.js';

const position = (o: Partial<Position>): Position => ({ size: new Dec('2'), notional: new Dec('100000'), margin: new Dec('20000'), pnl: null, direction: 'long', ...o }) as Position;

describe('position figures on /status and the dashboard', () => {
  it('entry = notional / size, leverage = notional / margin, unrealised at the index price (ENGINE-MODEL)', () => {
    const long = positionFigures(position({ pnl: new Dec('12.5') }), new Dec('50100.5'));
    expect([long.entryPrice, long.leverage, long.unrealisedPnl, long.realisedPnl].map(String)).toEqual(['50000', '5', '201', '12.5']);
    const short = positionFigures(position({ direction: 'short' }), new Dec('50100.5'));
    expect([short.unrealisedPnl, short.realisedPnl].map(String)).toEqual(['-201', '0']);
    // exact decimals: no binary rounding on a price with many places
    expect(positionFigures(position({ size: new Dec('0.3'), notional: new Dec('0.9') }), new Dec('3.1')).unrealisedPnl!.toString()).toBe('0.03');
  });

  it('says nothing it cannot know: no mark, no unrealised; no size, no entry', () => {
    const f = positionFigures(position({ size: new Dec(0), margin: new Dec(0) }), undefined);
    expect([f.entryPrice, f.leverage, f.unrealisedPnl]).toEqual([null, null, null]);
  });
});
