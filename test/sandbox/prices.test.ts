import { describe, expect, it } from 'vitest';
import { ORCL_1D } from '../data.js';
import { HttpExchange } from '../../src/api/client.js';
import { Dec } from '../../src/core/decimal.js';
import { parseSandboxConfig } from '../../src/sandbox/config.js';
import { readCandleFile } from '../../src/sandbox/price-tracks.js';
import { startSandbox } from '../../src/sandbox/server.js';
import { admin } from './helpers.js';

// Real daily candles, shipped with the project.
const BTC_FILE = ORCL_1D;

function config(clock: string, price: string) {
  return parseSandboxConfig(`adminToken: admin-token-test
clock: ${clock}
markets:
  - baseAsset: BTC
    price: ${price}
users:
  - name: u
    apiKey: psk_prices_u_001
    accounts: [{ name: a }]
`);
}

describe('sandbox prices', () => {
  it('replays a real candle file through the engine: open, low/high in the usual order, close', async () => {
    const sb = await startSandbox({
      config: config('{ mode: manual, start: "2024-01-03T00:00:00Z" }', `{ replay: { file: "${BTC_FILE}", candleMs: 4s, loop: false } }`),
      port: 0,
    });
    try {
      const candles = readCandleFile(BTC_FILE, 'k').slice(0, 3);
      const client = new HttpExchange({ baseUrl: sb.baseUrl, apiKey: 'psk_prices_u_001' });
      const marketId = sb.describe.markets[0]!.id;
      const seen: string[] = [(await client.getMarket(marketId)).state.indexPrice.toString()];
      for (let i = 0; i < 11; i += 1) {
        expect((await admin(sb.baseUrl, 'POST', 'advance', { ms: 1000 })).status).toBe(200);
        const m = await client.getMarket(marketId);
        expect(m.state.blockTimestamp).toBe(Date.parse('2024-01-03T00:00:00Z') + (i + 1) * 1000);
        seen.push(m.state.indexPrice.toString());
      }
      const expected = candles.flatMap((c) => {
        const rising = Number(c.close) >= Number(c.open);
        return [c.open, rising ? c.low : c.high, rising ? c.high : c.low, c.close].map((d) => new Dec(d).toString());
      });
      expect(seen).toEqual(expected);
    } finally {
      await sb.close();
    }
  });

  it('an accelerated clock moves the engine and the seeded walk on the server timer', async () => {
    const sb = await startSandbox({
      config: config('{ mode: accelerated, speed: 1000, tickMs: 10 }', '{ randomWalk: { initial: "100", stepMs: 1s, volatility: "0.01" } }'),
      port: 0,
    });
    try {
      const start = sb.describe.clock.startMs;
      // Wait (without asserting any duration) until the timer has moved sandbox time a simulated minute.
      for (;;) {
        const t = await admin(sb.baseUrl, 'GET', 'time');
        if (t.json.now >= start + 60_000) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      const client = new HttpExchange({ baseUrl: sb.baseUrl, apiKey: 'psk_prices_u_001' });
      const m = await client.getMarket(sb.describe.markets[0]!.id);
      expect(m.state.blockTimestamp).toBeGreaterThanOrEqual(start + 60_000);
      expect(m.state.indexPrice.toString()).not.toBe('100');
      expect(m.state.indexPrice.decimalPlaces()).toBeLessThanOrEqual(2);
    } finally {
      await sb.close();
    }
  });

  it('the same seed walks the same prices', async () => {
    const walk = async () => {
      const sb = await startSandbox({
        config: config('{ mode: manual, start: "2024-01-03T00:00:00Z" }', '{ randomWalk: { initial: "100", stepMs: 1s, volatility: "0.01", seed: w1 } }'),
        port: 0,
      });
      try {
        const client = new HttpExchange({ baseUrl: sb.baseUrl, apiKey: 'psk_prices_u_001' });
        const out: string[] = [];
        for (let i = 0; i < 5; i += 1) {
          await admin(sb.baseUrl, 'POST', 'advance', { ms: 7000 });
          out.push((await client.getMarket(sb.describe.markets[0]!.id)).state.indexPrice.toString());
        }
        return out;
      } finally {
        await sb.close();
      }
    };
    const a = await walk();
    expect(new Set(a).size).toBeGreaterThan(1);
    expect(await walk()).toEqual(a);
  });
});
