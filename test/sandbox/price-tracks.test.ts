import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeCandles } from '../backtest/helpers.js';
import { COINBASE_BTC_1H, ORCL_1D, shippedCandles } from '../data.js';
import { Dec } from '../../src/core/decimal.js';
import { ConfigError } from '../../src/core/errors.js';
import { CandleReplayTrack, inferCandleMs, RandomWalkTrack, readCandleFile } from '../../src/sandbox/price-tracks.js';
import { SandboxClock } from '../../src/sandbox/sandbox-clock.js';


describe('random walk', () => {
  const options = { initial: new Dec('100'), stepMs: 1000, volatility: new Dec('0.01'), decimals: 2, seed: 's' };

  it('is repeatable by seed, steps on the grid and stays within the volatility', () => {
    const a = new RandomWalkTrack(options, 10_000).pointsUntil(70_000);
    const b = new RandomWalkTrack(options, 10_000).pointsUntil(70_000);
    expect(a.map((p) => [p.atMs, p.price.toString()])).toEqual(b.map((p) => [p.atMs, p.price.toString()]));
    expect(a.length).toBe(60);
    expect(a[0]!.atMs).toBe(11_000);
    let prev = new Dec(100);
    for (const p of a) {
      expect(p.price.decimalPlaces()).toBeLessThanOrEqual(2);
      expect(p.price.div(prev).minus(1).abs().lte('0.0101')).toBe(true);
      prev = p.price;
    }
    const other = new RandomWalkTrack({ ...options, seed: 't' }, 10_000).pointsUntil(70_000);
    expect(other.map((p) => p.price.toString())).not.toEqual(a.map((p) => p.price.toString()));
  });

  it('hands each point out once and continues from an override', () => {
    const t = new RandomWalkTrack({ ...options, volatility: new Dec(0) }, 0);
    expect(t.pointsUntil(2000)).toHaveLength(2);
    expect(t.pointsUntil(2000)).toHaveLength(0);
    t.override(new Dec('123.45'));
    expect(t.pointsUntil(3000)[0]!.price.toString()).toBe('123.45');
  });
});

describe('candle replay', () => {
  const rising = { timeMs: 0, open: '10', high: '14', low: '9', close: '13' };
  const falling = { timeMs: 60_000, open: '13', high: '15', low: '8', close: '9.0' };

  it('plays open, low/high in the usual order, close, spread over the candle', () => {
    const t = new CandleReplayTrack({ candles: [rising, falling], candleMs: 4000, loop: false }, 1_000_000);
    expect(t.initialPrice.toString()).toBe('10');
    const pts = t.pointsUntil(1_000_000 + 100_000);
    expect(pts.map((p) => p.price.toNumber())).toEqual([9, 14, 13, 13, 15, 8, 9]);
    expect(pts.map((p) => p.atMs - 1_000_000)).toEqual([1000, 2000, 3000, 4000, 5000, 6000, 7000]);
  });

  it('loops when asked', () => {
    const t = new CandleReplayTrack({ candles: [rising], candleMs: 4, loop: true }, 0);
    expect(t.pointsUntil(8).map((p) => p.price.toNumber())).toEqual([9, 14, 13, 10, 9, 14, 13, 10]);
  });

  it('reads the real candle files and infers their period', async () => {
    const candles = readCandleFile(ORCL_1D, 'k');
    expect(candles.length).toBe(248);
    expect(inferCandleMs(candles)).toBe(86_400_000);
    // The sandbox reads propbot's own layout: the shipped hourly candles, written in it.
    const file = writeCandles(mkdtempSync(path.join(tmpdir(), 'propbot-candles-')), 'btc-1h.csv', await shippedCandles(COINBASE_BTC_1H, 100));
    const hourly = readCandleFile(file, 'k');
    expect(inferCandleMs(hourly)).toBe(3_600_000);
    expect(hourly[0]!.open).toBe('2505.56');
  });

  it('names the file, line and column of a bad row', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'propbot-candles-'));
    const file = path.join(dir, 'bad.csv');
    writeFileSync(file, 'timestamp_ms,open,high,low,close,volume\n0,1,2,0.5,1,1\n60000,1,abc,0.5,1,1\n');
    try {
      readCandleFile(file, 'markets.0.price.replay.file');
      throw new Error('expected a ConfigError');
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).line).toBe(3);
      expect((err as ConfigError).message).toContain('column high');
    }
  });
});

describe('SandboxClock', () => {
  it('follows wall time, accelerates it, or moves only when told', () => {
    let wall = 1000;
    const w = () => wall;
    const real = new SandboxClock('wall', 50, 5000, w);
    const fast = new SandboxClock('accelerated', 60, 5000, w);
    const manual = new SandboxClock('manual', 1, 5000, w);
    wall += 100;
    expect(real.now()).toBe(5100);
    expect(fast.now()).toBe(5000 + 6000);
    expect(manual.now()).toBe(5000);
    expect(manual.advance(250)).toBe(5250);
    wall -= 50; // the wall clock stepped back: sandbox time does not
    expect(real.now()).toBe(5100);
  });
});
