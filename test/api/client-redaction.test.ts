import { inspect } from 'node:util';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dec } from '../../src/core/decimal.js';
import { HttpExchange } from '../../src/api/client.js';
import { CannedServer } from './canned-server.js';
import { IDS, wireOrder } from './fixtures.js';

const API_KEY = 'pk_live_REDACTME_5e1f0c9a8b7d6e5f';

let server: CannedServer;
beforeAll(async () => {
  server = await CannedServer.start();
});
afterAll(async () => {
  await server.stop();
});

describe('API key redaction', () => {
  it('the key appears in no log line, error message, serialised or inspected error', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const logger = pino({ level: 'trace' }, sink);
    const client = new HttpExchange({ baseUrl: server.url, apiKey: API_KEY, timeoutMs: 200, logger });

    // The hostile server echoes the credential back in every way it can.
    const echo = (req: { headers: Record<string, unknown> }) => String(req.headers['authorization']);
    const scenarios: Array<{ run: () => Promise<unknown>; canned: Parameters<CannedServer['on']>[0] }> = [
      { run: () => client.listRiskStatuses(), canned: (r) => ({ status: 401, body: { error: 'unauthorized', message: `bad key ${echo(r)}` } }) },
      { run: () => client.getMarket(IDS.market), canned: (r) => ({ status: 500, body: `<html>${echo(r)}</html>` }) },
      {
        run: () => client.cancelOrder(IDS.order),
        canned: (r) => ({ status: 429, headers: { 'Retry-After': '5' }, body: { error: 'api_key_rate_limit_exceeded', key: echo(r), nested: { again: echo(r) } } }),
      },
      { run: () => client.listActiveOrders(IDS.account), canned: (r) => ({ body: [{ ...wireOrder(), triggerPrice: echo(r) }] }) },
      { run: () => client.listActiveOrders(IDS.account), canned: (r) => ({ body: `not json ${echo(r)}` }) },
      {
        run: () => client.createOrder({ accountId: IDS.account, marketId: IDS.market, type: 'market', direction: 'long', amount: dec(1) }),
        canned: { drop: true },
      },
      { run: () => client.getRiskStatus(IDS.account), canned: { hang: true } },
    ];

    const captured: string[] = [];
    let failures = 0;
    for (const s of scenarios) {
      server.on(s.canned);
      const err = await s.run().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(Error);
      failures += 1;
      const e = err as Error;
      captured.push(e.message, String(e.stack), JSON.stringify(e), inspect(e, { depth: Infinity, showHidden: true }));
    }
    // A refused connection too.
    const orphan = new HttpExchange({ baseUrl: await CannedServer.closedUrl(), apiKey: API_KEY, logger });
    const refused = await orphan.listMarkets().then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    captured.push(String(refused?.message), JSON.stringify(refused), inspect(refused, { depth: Infinity, showHidden: true }));
    captured.push(inspect(client, { depth: Infinity, showHidden: true }), JSON.stringify(client));

    // The server did receive the key (so the test would notice it going missing)…
    expect(server.requests.every((r) => r.headers['authorization'] === `Bearer ${API_KEY}`)).toBe(true);
    expect(failures).toBe(scenarios.length);
    // …logs were written for every request…
    expect(lines.length).toBeGreaterThanOrEqual(scenarios.length + 1);
    const logText = lines.join('');
    expect(logText).toContain('propbot api');
    // …and the key is nowhere on our side.
    const all = captured.join('\n') + logText;
    expect(all).not.toContain(API_KEY);
    expect(all).toContain('[redacted]');
  });
});
