import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/errors.js';
import { PipelineMetrics } from '../../src/runtime/metrics.js';
import { startStatusServer, type ControlCall, type StatusServer } from '../../src/runtime/status-server.js';

const open: StatusServer[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});

describe('status server', () => {
  it('serves /health, /status and /metrics on loopback', async () => {
    const metrics = new PipelineMetrics();
    metrics.decisions.inc({ verdict: 'denied', code: 'daily_drawdown_headroom' });
    let healthy = true;
    const server = await startStatusServer({ port: 0, metrics, health: () => ({ healthy }), status: () => ({ accounts: [{ id: 'a', equity: 12n }] }) });
    open.push(server);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    healthy = false;
    expect((await fetch(`${server.url}/health`)).status).toBe(503);
    expect(await (await fetch(`${server.url}/status`)).json()).toEqual({ accounts: [{ id: 'a', equity: '12' }] });
    const text = await (await fetch(`${server.url}/metrics`)).text();
    expect(text).toContain('propbot_guard_decisions_total{verdict="denied",code="daily_drawdown_headroom"} 1');
    expect((await fetch(`${server.url}/nope`)).status).toBe(404);
    expect((await fetch(`${server.url}/status`, { method: 'POST' })).status).toBe(405);
  });

  it('refuses a non-loopback host and names the key when the port is taken', async () => {
    const metrics = new PipelineMetrics();
    const base = { metrics, health: () => ({ healthy: true }), status: () => ({}) };
    await expect(startStatusServer({ ...base, port: 0, host: '0.0.0.0' })).rejects.toThrow(/status\.host.*loopback/);
    // Loopback however it is written (the one test the sandbox and the client use too).
    for (const host of ['LOCALHOST', '127.0.0.2']) open.push(await startStatusServer({ ...base, port: 0, host }));
    const first = await startStatusServer({ ...base, port: 0 });
    open.push(first);
    const port = Number(new URL(first.url).port);
    const second = startStatusServer({ ...base, port });
    await expect(second).rejects.toBeInstanceOf(ConfigError);
    await expect(second).rejects.toThrow(/status\.port.*EADDRINUSE/);
  });
});

/** A raw request, so the test controls the Host and Origin headers (fetch forbids setting Host). */
function raw(url: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<{ status: number; headers: import('node:http').IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? 'GET', headers: options.headers ?? {} }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

describe('status server: the cockpit routes and their safety', () => {
  const TOKEN = 'cockpit-test-token-0123456789';
  const calls: ControlCall[] = [];
  async function cockpitServer(withControl: boolean, extra: Partial<Parameters<typeof startStatusServer>[0]> = {}): Promise<StatusServer> {
    const server = await startStatusServer({
      port: 0,
      metrics: new PipelineMetrics(),
      health: () => ({ healthy: true }),
      status: () => ({ ok: true }),
      dashboard: { files: new Map([['/', { type: 'text/html', body: '<!DOCTYPE html><p>page</p>' }]]), state: (after) => ({ seq: after + 1 }), seqOf: (s) => (s as { seq: number }).seq, pushIntervalMs: 50 },
      ...(withControl
        ? {
            control: {
              token: TOKEN,
              handle: (call) => {
                if (call.target === 'ghost') throw new Error('no such strategy');
                calls.push(call);
                return { action: call.action, outcome: 'applied' };
              },
              statusOf: (e) => ((e as Error).message.startsWith('no such') ? 404 : 500),
            },
          }
        : {}),
      ...extra,
    });
    open.push(server);
    return server;
  }

  it('answers only to loopback names in the Host header (a DNS-rebinding page reads nothing)', async () => {
    const server = await cockpitServer(false);
    const port = new URL(server.url).port;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST`, `[::1]:${port}`]) {
      expect((await raw(`${server.url}/status`, { headers: { host } })).status, host).toBe(200);
    }
    for (const host of [`evil.example:${port}`, 'attacker.test', `127.0.0.1.nip.io:${port}`]) {
      const res = await raw(`${server.url}/status`, { headers: { host } });
      expect(res.status, host).toBe(403);
      expect(JSON.parse(res.body).error).toBe('host_not_allowed');
      expect(res.body).not.toContain('"ok"');
    }
    // the page and the live stream too
    expect((await raw(`${server.url}/`, { headers: { host: 'evil.example' } })).status).toBe(403);
    expect((await raw(`${server.url}/events`, { headers: { host: 'evil.example' } })).status).toBe(403);
  });

  it('answers CORS with nothing: no Access-Control header, OPTIONS refused', async () => {
    const server = await cockpitServer(true);
    const get = await raw(`${server.url}/status`, { headers: { origin: 'http://evil.example' } });
    expect(get.status).toBe(200);
    expect(Object.keys(get.headers).filter((h) => h.startsWith('access-control'))).toEqual([]);
    const preflight = await raw(`${server.url}/control/strategies/s/pause`, { method: 'OPTIONS', headers: { origin: 'http://evil.example', 'access-control-request-method': 'POST' } });
    expect(preflight.status).toBe(405);
    expect(Object.keys(preflight.headers).filter((h) => h.startsWith('access-control'))).toEqual([]);
    // a cross-origin POST carrying the right token is refused all the same
    const post = await raw(`${server.url}/control/strategies/s/pause`, { method: 'POST', headers: { origin: 'http://evil.example', authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: '{}' });
    expect(post.status).toBe(403);
    expect(JSON.parse(post.body).error).toBe('origin_not_allowed');
    expect(calls).toEqual([]);
  });

  it('serves the page with a strict content security policy and streams state as server-sent events', async () => {
    const server = await cockpitServer(false);
    const page = await fetch(`${server.url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.headers.get('content-security-policy')).toContain("connect-src 'self'");
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    const controller = new AbortController();
    const res = await fetch(`${server.url}/events?after=4`, { signal: controller.signal });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const reader = res.body!.getReader();
    let text = '';
    while ((text.match(/event: state/g) ?? []).length < 2) text += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    // the first message starts after the page's last point, the next after the first's
    const seqs = [...text.matchAll(/data: (\{.*\})/g)].map((m) => JSON.parse(m[1]!).seq);
    expect(seqs.slice(0, 2)).toEqual([5, 6]);
  });

  it('read-only without a token; with one: Bearer token, JSON body, known actions and targets', async () => {
    const ro = await cockpitServer(false);
    const refused = await fetch(`${ro.url}/control/strategies/s/pause`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: '{}' });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: string }).error).toBe('read_only');

    const server = await cockpitServer(true);
    const post = (path: string, headers: Record<string, string>, body = '{"actor":"alice","reason":"news at 14:30"}') => fetch(`${server.url}${path}`, { method: 'POST', headers, body });
    const json = { 'content-type': 'application/json' };
    expect((await post('/control/strategies/s/pause', json)).status).toBe(401);
    expect((await post('/control/strategies/s/pause', { ...json, authorization: 'Bearer wrong-token-wrong-token' })).status).toBe(401);
    expect((await post('/control/strategies/s/pause', { authorization: `Bearer ${TOKEN}`, 'content-type': 'text/plain' })).status).toBe(415);
    const auth = { ...json, authorization: `Bearer ${TOKEN}` };
    expect((await post('/control/strategies/s/explode', auth)).status).toBe(404);
    expect((await post('/control/strategies/ghost/pause', auth)).status).toBe(404);
    expect((await post('/control/strategies/s/pause', auth, '[1,2]')).status).toBe(400);
    expect((await post('/control/strategies/s/pause', auth, '{"actor":' + JSON.stringify('x'.repeat(300)) + '}')).status).toBe(400);
    expect(calls).toEqual([]);
    const ok = await post('/control/strategies/my%20strat/pause', auth);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ action: 'pause', outcome: 'applied' });
    expect(calls).toEqual([{ kind: 'strategies', target: 'my strat', action: 'pause', actor: 'alice', reason: 'news at 14:30', origin: '127.0.0.1' }]);
    // GET on a control path is not a control
    expect((await fetch(`${server.url}/control/strategies/s/pause`)).status).toBe(404);
  });

  it('binds a non-loopback address only when the config names it, and then answers to that name', async () => {
    const base = { port: 0, metrics: new PipelineMetrics(), health: () => ({ healthy: true }), status: () => ({ ok: 1 }) };
    await expect(startStatusServer({ ...base, host: '0.0.0.0' })).rejects.toThrow(/status\.host: must be a loopback address unless set on purpose/);
    const server = await startStatusServer({ ...base, host: '0.0.0.0', allowNonLoopback: true, allowedHosts: ['trader-box.lan'] });
    open.push(server);
    const port = new URL(server.url).port;
    expect((await raw(`http://127.0.0.1:${port}/status`, { headers: { host: `trader-box.lan:${port}` } })).status).toBe(200);
    expect((await raw(`http://127.0.0.1:${port}/status`, { headers: { host: `other.lan:${port}` } })).status).toBe(403);
  });
});
