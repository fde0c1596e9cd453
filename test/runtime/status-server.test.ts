import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/errors.js';
import { PipelineMetrics } from '../../src/runtime/metrics.js';
import { startStatusServer, type StatusServer } from '../../src/runtime/status-server.js';

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
    const first = await startStatusServer({ ...base, port: 0 });
    open.push(first);
    const port = Number(new URL(first.url).port);
    const second = startStatusServer({ ...base, port });
    await expect(second).rejects.toBeInstanceOf(ConfigError);
    await expect(second).rejects.toThrow(/status\.port.*EADDRINUSE/);
  });
});
