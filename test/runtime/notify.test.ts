/**
 * Notifications against a real HTTP receiver on 127.0.0.1: the JSON webhook and Telegram's Bot API
 * shape (its base URL pointed at the receiver), retries, the bounded queue in front of a dead receiver,
 * and secrets that never leave in a message.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/errors.js';
import { PipelineMetrics } from '../../src/runtime/metrics.js';
import { createTransport } from '../../src/runtime/notify/channels.js';
import { NotifyConfigSchema } from '../../src/runtime/notify/config.js';
import { Notifier } from '../../src/runtime/notify/notifier.js';
import { Outbox, type OutboxMessage } from '../../src/runtime/notify/outbox.js';
import { parseRunConfig } from '../../src/runtime/run-config.js';
import { Subject } from 'rxjs';
import { Dec } from '../../src/core/decimal.js';
import { VirtualClock } from '../../src/core/clock.js';
import { RiskGuard } from '../../src/risk/guard.js';
import type { DaySummary, FillView } from '../../src/runtime/cockpit/types.js';
import type { StrategyStatus } from '../../src/strategy/runner.js';
import { startReceiver, type Receiver } from '../fixtures/http-receiver.js';

const receivers: Receiver[] = [];
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
  for (const r of receivers.splice(0)) await r.close();
});

async function receiver(): Promise<Receiver> {
  const r = await startReceiver();
  receivers.push(r);
  return r;
}

async function until(what: string, pred: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !pred(); i++) await new Promise((r) => setTimeout(r, 25));
  if (!pred()) throw new Error(`timed out waiting for ${what}`);
}

const BOT_TOKEN = '123456:telegram-bot-token-ABCdef';
const CHAT = '-100424242';
const HOOK_TOKEN = 'webhook-bearer-token-0987';
const API_KEY = 'psk_live_must_never_leave_1234';

const message = (text: string, data: Record<string, unknown> = {}): OutboxMessage => ({ event: 'fill', at: Date.UTC(2026, 0, 2, 3, 4, 5), text, data });

describe('notifications to a real receiver', () => {
  it('posts the JSON webhook and the Telegram sendMessage shape, per channel events, with no secret in any message', async () => {
    const r = await receiver();
    const metrics = new PipelineMetrics();
    const config = NotifyConfigSchema.parse({
      channels: [
        { type: 'webhook', url: `${r.url}/hook`, tokenEnv: 'HOOK_TOKEN', events: ['fill', 'guard_state', 'denial'], denialCodes: ['daily_drawdown_headroom'] },
        { type: 'telegram', name: 'phone', baseUrl: r.url, tokenEnv: 'TG_TOKEN', chatIdEnv: 'TG_CHAT', events: ['guard_state', 'daemon'] },
      ],
    });
    const notifier = new Notifier({ config, env: { HOOK_TOKEN, TG_TOKEN: BOT_TOKEN, TG_CHAT: CHAT }, secrets: [API_KEY], metrics });
    closers.push(() => notifier.close(100));
    // A message that (by a bug elsewhere) carries secrets: they are scrubbed before leaving.
    notifier.send(message(`Fill BTC open long, key ${API_KEY} token ${BOT_TOKEN}`, { note: HOOK_TOKEN, size: '1.5' }));
    notifier.send({ event: 'guard_state', at: 1, text: 'Guard a: ACTIVE → HALTED', data: { to: 'HALTED' } });
    notifier.send({ event: 'denial', at: 2, text: 'Denied (trades_per_day)', data: { code: 'trades_per_day' } });
    notifier.send({ event: 'denial', at: 3, text: 'Denied (daily_drawdown_headroom)', data: { code: 'daily_drawdown_headroom' } });
    notifier.send({ event: 'daemon', at: 4, text: 'propbot paper started', data: {} });
    notifier.send({ event: 'kill_switch', at: 5, text: 'nobody asked for this one', data: {} });
    await until('five deliveries', () => r.requests.length === 5);

    const hook = r.requests.filter((q) => q.path === '/hook');
    expect(hook.map((q) => q.json()['event'])).toEqual(['fill', 'guard_state', 'denial']);
    expect(hook.every((q) => q.headers.authorization === `Bearer ${HOOK_TOKEN}` && q.headers['content-type'] === 'application/json')).toBe(true);
    expect(hook[0]!.json()).toEqual({ event: 'fill', at: '2026-01-02T03:04:05.000Z', text: 'Fill BTC open long, key [redacted] token [redacted]', data: { note: '[redacted]', size: '1.5' } });
    expect(hook[2]!.json()['data']).toEqual({ code: 'daily_drawdown_headroom' });

    const tg = r.requests.filter((q) => q.path.startsWith('/bot'));
    expect(tg.map((q) => [q.method, q.path])).toEqual([
      ['POST', `/bot${BOT_TOKEN}/sendMessage`],
      ['POST', `/bot${BOT_TOKEN}/sendMessage`],
    ]);
    expect(tg.map((q) => q.json())).toEqual([
      { chat_id: CHAT, text: 'Guard a: ACTIVE → HALTED', disable_web_page_preview: true },
      { chat_id: CHAT, text: 'propbot paper started', disable_web_page_preview: true },
    ]);
    for (const q of r.requests) for (const secret of [API_KEY, BOT_TOKEN, HOOK_TOKEN]) expect(q.body).not.toContain(secret);
    expect(await metrics.text()).toMatch(/propbot_notifications_total\{channel="phone",outcome="sent"\} 2/);
  });

  it('retries 5xx and 429 (honouring retry_after), gives up on a 4xx refusal without retrying', async () => {
    const r = await receiver();
    r.respond((req, res, i) => {
      if (i < 2) return res.writeHead(502).end('bad gateway');
      if (i === 2) return res.writeHead(429, { 'content-type': 'application/json' }).end('{"ok":false,"error_code":429,"description":"Too Many Requests","parameters":{"retry_after":0.05}}');
      if (req.json<{ text: string }>().text === 'refused') return res.writeHead(400, { 'content-type': 'application/json' }).end('{"ok":false,"description":"Bad Request: chat not found"}');
      res.writeHead(200).end('{"ok":true}');
    });
    const metrics = new PipelineMetrics();
    const channel = NotifyConfigSchema.parse({ channels: [{ type: 'telegram', baseUrl: r.url, events: ['fill'] }] }).channels[0]!;
    const transport = createTransport(channel, 0, { PROPBOT_TELEGRAM_TOKEN: BOT_TOKEN, PROPBOT_TELEGRAM_CHAT_ID: CHAT }, { secrets: [] });
    const warnings: string[] = [];
    const outbox = new Outbox({ transport, queueSize: 10, rate: { limit: 100, windowMs: 1000 }, attempts: 5, timeoutMs: 2000, metrics, retry: { baseDelayMs: 5 }, logger: { warn: (_o, m) => warnings.push(m), debug: () => undefined } });
    closers.push(() => outbox.close(100));
    outbox.push(message('first'));
    outbox.push(message('refused'));
    await until('both settled', () => r.requests.length === 5 && outbox.queued === 0 && warnings.length === 1);
    // 502, 502, 429, then 200 for the first; one try for the refused one
    expect(r.requests.map((q) => q.json<{ text: string }>().text)).toEqual(['first', 'first', 'first', 'first', 'refused']);
    const text = await metrics.text();
    expect(text).toMatch(/propbot_notifications_total\{channel="telegram0",outcome="sent"\} 1/);
    expect(text).toMatch(/propbot_notifications_total\{channel="telegram0",outcome="failed"\} 1/);
    expect(warnings[0]).toBe('notify telegram0: gave up on a fill message: telegram0: HTTP 400 (Bad Request: chat not found)');
    // the bot token sits in the URL: no log line names it
    expect(warnings.join('\n')).not.toContain(BOT_TOKEN);
  });

  it('a dead receiver never blocks the caller nor grows memory: the queue stays bounded and drops are counted', async () => {
    const r = await receiver();
    r.respond('hang');
    const metrics = new PipelineMetrics();
    const config = NotifyConfigSchema.parse({ channels: [{ type: 'webhook', name: 'dead', url: `${r.url}/hook`, events: ['fill'] }], queueSize: 3, timeoutMs: 60_000 });
    const notifier = new Notifier({ config, env: {}, secrets: [], metrics });
    for (let i = 0; i < 10; i++) notifier.send(message(`fill ${i}`));
    // one request is out (and hangs), three wait, six were dropped at once: oldest first
    await until('the first request', () => r.requests.length === 1);
    expect(await metrics.text()).toMatch(/propbot_notifications_total\{channel="dead",outcome="dropped"\} 6/);
    expect(await metrics.text()).toMatch(/propbot_notify_queue\{channel="dead"\} 3/);
    expect(r.requests[0]!.json()['text']).toBe('fill 0');
    // shutdown gives the queue a grace period, then drops what is left (the hanging one included)
    await notifier.close(50);
    expect(await metrics.text()).toMatch(/propbot_notifications_total\{channel="dead",outcome="dropped"\} 10/);
    expect(await metrics.text()).toMatch(/propbot_notify_queue\{channel="dead"\} 0/);
    expect(r.requests).toHaveLength(1);
  });

  it('follows the pipeline: guard state changes, the kill switch, listed denials, strategy failures, day summaries', async () => {
    const r = await receiver();
    const config = NotifyConfigSchema.parse({
      channels: [{ type: 'webhook', url: `${r.url}/hook`, events: ['guard_state', 'kill_switch', 'denial', 'strategy_failed', 'daily_summary'], denialCodes: ['strategy_paused'] }],
    });
    const notifier = new Notifier({ config, env: {}, secrets: [] });
    closers.push(() => notifier.close(100));
    const guard = new RiskGuard({ clock: new VirtualClock(Date.UTC(2026, 0, 5)) });
    const failures$ = new Subject<StrategyStatus>();
    const days$ = new Subject<DaySummary>();
    notifier.connect({ guard, fills$: new Subject<FillView>(), days$, failures$ });
    guard.flatten('acc-1', 'by carol: test');
    guard.pauseStrategy('s1', 'by carol');
    guard.check({ id: 'i1', strategy: 's1', accountId: 'acc-1', asset: 'BTC', createdAt: 0, kind: 'cancel', orderId: 'o1' });
    failures$.next({ name: 's2', strategy: 's2', version: '1', accountId: 'acc-1', assets: ['BTC'], state: 'failed', intents: 3, startedAt: 0, endedAt: 5, error: 'boom', failedIn: null, errorLocation: null } as StrategyStatus);
    days$.next({ accountId: 'acc-1', day: '2026-01-04', startEquity: new Dec(100000), endEquity: new Dec('100250.5'), pnl: new Dec('250.5'), fills: 4, trades: 2, totalTrades: 9 });
    await until('five messages', () => r.requests.length === 5);
    const got = r.requests.map((q) => q.json<{ event: string; text: string }>());
    expect(got.map((m) => m.event)).toEqual(['guard_state', 'kill_switch', 'denial', 'strategy_failed', 'daily_summary']);
    expect(got[0]!.text).toBe('Guard acc-1: ACTIVE → HALTED\nmanual: flattened by hand (by carol: test)');
    expect(got[1]!.text).toContain('Kill switch on acc-1');
    expect(got[2]!.text).toBe('Denied (strategy_paused) s1: cancel order o1\nstrategy s1 is paused: by carol');
    expect(got[3]!.text).toBe('Strategy s2 failed and stopped: boom');
    expect(got[4]!.text).toBe('2026-01-04 acc-1: pnl 250.50 (equity 100000.00 → 100250.50), 4 fills, 2 trades closed (9 since start)');
  });

  it('checks the notify block: denial codes, environment variables, unknown keys', () => {
    const base = 'mode: paper\npaper: { markets: [{ asset: BTC, file: x.csv }] }\nstrategies: [{ use: sma-cross }]\n';
    expect(() => parseRunConfig(`${base}notify:\n  channels:\n    - { type: webhook, url: "http://127.0.0.1:1/h", events: [denial] }\n`, '/tmp', 'run.yaml')).toThrow(/notify\.channels\.0\.denialCodes.*list the denial codes/);
    expect(() => parseRunConfig(`${base}notify:\n  channels:\n    - { type: webhook, url: "http://127.0.0.1:1/h", events: [fills] }\n`, '/tmp', 'run.yaml')).toThrow(/notify\.channels\.0\.events\.0/);
    expect(() => parseRunConfig(`${base}notify:\n  channels:\n    - { type: telegram, events: [fill], chat: 1 }\n`, '/tmp', 'run.yaml')).toThrow(/chat/);
    const channel = NotifyConfigSchema.parse({ channels: [{ type: 'telegram', events: ['fill'] }] }).channels[0]!;
    const missing = () => createTransport(channel, 2, { PROPBOT_TELEGRAM_TOKEN: BOT_TOKEN }, { secrets: [] });
    expect(missing).toThrow(ConfigError);
    expect(missing).toThrow('notify.channels.2.chatIdEnv: the environment variable PROPBOT_TELEGRAM_CHAT_ID is not set');
  });
});
