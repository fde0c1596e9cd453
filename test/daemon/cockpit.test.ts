/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/**
 * The cockpit end to end: `propbot run` in paper mode as a child process, its dashboard in Debian's
 * headless Chromium (driven by playwright-core, which downloads no browser), and a real HTTP receiver
 * on 127.0.0.1 taking the webhook and the Telegram-shaped notifications. The page loads and draws,
 * a fill made during the test appears without a reload, a pause and a flatten clicked on the page take
 * effect and are recorded in the store and the log, and the receiver gets the fills and the guard's
 * state changes. Screenshots go to `test-artifacts/` (gitignored).
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../fixtures/http-receiver.js';
import { COINBASE_BTC_1H as DATA } from '../data.js';
import { childrenTempDir, cli, query, ROOT } from './helpers.js';

const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = path.join(ROOT, 'test-artifacts');
const TOKEN = 'cockpit-e2e-control-token-5f2a91';
const BOT_TOKEN = '987654:cockpit-e2e-bot-token-Zq';
const CHAT = '-1009876';

const tmp = childrenTempDir('propbot-cockpit-');
let browser: Browser | undefined;
let receiver: Receiver | undefined;
afterAll(async () => {
  await browser?.close();
  await receiver?.close();
});

function runYaml(store: string, hook: string): string {
  return `mode: paper
paper:
  markets:
    - asset: BTC
      file: ${DATA}
  from: 2019-05-01
  speed: 36000          # ten hours of market time per second: a crossover every second or so
  balance: 100000
  phase: active_evaluation
strategies:
  - use: sma-cross
    params: { asset: BTC, period: 1h, fast: 3, slow: 8, amount: "5000", leverage: "2", stopPercent: "0.08" }
risk:
  scalping: { enabled: false }
store: { file: ${store} }
status: { port: 0, controlTokenEnv: PROPBOT_TEST_CONTROL_TOKEN, pushIntervalMs: 200 }
log: { level: info, format: json }
notify:
  rate: { limit: 200, windowMs: 1000 }
  channels:
    - { type: webhook, name: hook, url: "${hook}/hook", events: [fill, guard_state, kill_switch, daemon, daily_summary] }
    - { type: telegram, name: phone, baseUrl: "${hook}", events: [guard_state, kill_switch] }
`;
}

describe.skipIf(!existsSync(CHROMIUM))(`the cockpit of a paper run in headless Chromium (${CHROMIUM}; skipped when not installed)`, () => {
  it('shows live equity and fills, flattens and pauses from the page, and notifies a real receiver', async () => {
    receiver = await startReceiver();
    const store = path.join(tmp.dir, 'cockpit.db');
    const config = path.join(tmp.dir, 'run.yaml');
    writeFileSync(config, runYaml(store, receiver.url));
    const daemon = cli(['run', '--config', config], { PROPBOT_TEST_CONTROL_TOKEN: TOKEN, PROPBOT_TELEGRAM_TOKEN: BOT_TOKEN, PROPBOT_TELEGRAM_CHAT_ID: CHAT });
    await daemon.waitFor((out) => out.includes('"event":"ready"'), 'the daemon to be ready', 60_000);
    const ready = daemon.lines().find((l) => l['event'] === 'ready') as { status: string; accounts: string[] };
    const url = ready.status;
    const account = ready.accounts[0]!;
    // The guard_state gauge has a sample for the account from the start.
    expect(await (await fetch(`${url}/metrics`)).text()).toContain(`propbot_guard_state{account="${account}"} 0`);

    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
    const page = await browser.newPage({ viewport: { width: 1400, height: 1500 } });
    const pageErrors: string[] = [];
    const requested: string[] = [];
    let navigations = 0;
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('request', (r) => requested.push(r.url()));
    page.on('framenavigated', () => (navigations += 1));
    await page.goto(`${url}/`);
    const loads = navigations;

    // The page loads and the chart draws: a canvas, and equity points streamed into it.
    await page.waitForSelector('body[data-rendered="ok"]', { timeout: 30_000 });
    expect(await page.locator(`#chart-${account} canvas`).count()).toBeGreaterThan(0);
    await page.waitForFunction((id) => Number(document.getElementById(`chart-${id}`)?.dataset['points'] ?? 0) >= 5, account, { timeout: 30_000 });

    // A fill made while we watch appears without a reload.
    const seen = await page.$$eval('tr[data-fill]', (rows) => rows.map((r) => (r as HTMLElement).dataset['fill']!));
    const fresh = await page.waitForFunction(
      (known) => [...document.querySelectorAll<HTMLElement>('tr[data-fill]')].map((r) => r.dataset['fill']!).find((id) => !known.includes(id)),
      seen,
      { timeout: 60_000 },
    );
    const fillId = (await fresh.jsonValue()) as string;
    expect(navigations).toBe(loads);
    // It is a real fill of the daemon: the store holds its position event.
    const [positionId, version] = fillId.split(':');
    await expect.poll(async () => (await fetch(`${url}/status`)).ok).toBe(true);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, 'cockpit-dashboard.png'), fullPage: true });

    // Controls are locked until the token is typed.
    await page.waitForSelector('tr[data-position]', { timeout: 60_000 });
    expect(await page.locator('button[data-control="flatten"]').isDisabled()).toBe(true);
    await page.fill('#actor', 'e2e-trader');
    await page.fill('#token', TOKEN);
    await page.waitForSelector('button[data-control="flatten"]:not([disabled])');

    // Pause from the page: the strategy's next intent is denied as paused. A paused strategy closes
    // nothing either, and its stop is 8% away (May and June 2019's hourly moves stay inside it), so
    // the position it holds stays open until the flatten: the kill switch has a position to close
    // whatever the paced clock did meanwhile (a stop or the strategy's own close just before the
    // click would leave it none, and the fill below would never come).
    await page.click('tr[data-strategy="sma-cross"] button[data-control="pause"]');
    await page.waitForSelector('tr[data-strategy="sma-cross"][data-state="paused"]', { timeout: 30_000 });
    await page.waitForFunction(() => [...document.querySelectorAll('tr[data-verdict="denied"]')].some((r) => r.textContent!.includes('strategy_paused')), undefined, { timeout: 60_000 });
    await page.waitForSelector('tr[data-position]', { timeout: 30_000 });

    // Flatten from the page: HALTED, no position left, the closing fill's origin is the kill switch.
    page.once('dialog', (d) => void d.accept());
    await page.click('button[data-control="flatten"]');
    await page.waitForSelector(`section[data-account="${account}"][data-guard-state="HALTED"]`, { timeout: 30_000 });
    await page.waitForFunction(() => document.querySelectorAll('tr[data-position]').length === 0, undefined, { timeout: 30_000 });
    await page.waitForSelector('tr[data-fill][data-origin="kill_switch"]', { timeout: 30_000 });
    await page.screenshot({ path: path.join(ARTIFACTS, 'cockpit-after-controls.png'), fullPage: true });
    expect(await page.evaluate(() => document.body.dataset['error'] ?? null)).toBeNull();
    expect(pageErrors).toEqual([]);
    // Nothing came from the network: every request of the page went to the daemon.
    expect(requested.filter((u) => !u.startsWith(`${url}/`))).toEqual([]);
    await browser.close();
    browser = undefined;
    // Still flat and halted: nothing was sent after the flatten.
    const after = (await (await fetch(`${url}/status`)).json()) as { accounts: Array<{ guard: { state: string }; positions: unknown[] }> };
    expect(after.accounts[0]!.guard.state).toBe('HALTED');
    expect(after.accounts[0]!.positions).toEqual([]);
    // A control call naming no strategy of the daemon: 404, its strategies and the nearest name.
    const ghost = await fetch(`${url}/control/strategies/sma-crss/pause`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: '{}' });
    expect(ghost.status).toBe(404);
    expect(((await ghost.json()) as { message: string }).message).toBe('no strategy named "sma-crss" (its strategies: sma-cross); did you mean "sma-cross"?');

    daemon.kill('SIGTERM');
    expect(await daemon.exit).toEqual({ code: 0, signal: null });

    // Recorded: who did what, when, and the flatten's intent, judged and executed like any intent.
    const actions = await query<{ action: string; target: string; actor: string; origin: string; intent_id: string | null; outcome: string; wall_at: number }>(store, 'SELECT * FROM control_actions ORDER BY id');
    expect(actions.map((a) => [a.action, a.target, a.actor, a.origin, a.outcome])).toEqual([
      ['pause', 'sma-cross', 'e2e-trader', '127.0.0.1', 'applied'],
      ['flatten', account, 'e2e-trader', '127.0.0.1', 'submitted'],
    ]);
    expect(actions.every((a) => a.wall_at > Date.now() - 600_000)).toBe(true);
    const flattenId = actions[1]!.intent_id!;
    expect(await query(store, `SELECT verdict FROM decisions WHERE intent_id = '${flattenId}'`)).toEqual([{ verdict: 'approved' }]);
    expect(await query(store, `SELECT strategy, kind, status FROM intents WHERE id = '${flattenId}'`)).toEqual([{ strategy: 'risk-guard', kind: 'close_all', status: 'done' }]);
    // The page gives no reason: the guard says who flattened, and the record says none was given.
    expect(await query(store, `SELECT to_state, reason FROM guard_states WHERE account_id = '${account}'`)).toContainEqual({ to_state: 'HALTED', reason: 'manual: flattened by hand (by e2e-trader)' });
    expect(await query(store, "SELECT reason FROM control_actions WHERE action = 'flatten'")).toEqual([{ reason: 'no reason given' }]);
    const paused = await query<{ n: number }>(store, "SELECT COUNT(*) AS n FROM decisions WHERE verdict = 'denied' AND code = 'strategy_paused'");
    expect(paused[0]!.n).toBeGreaterThan(0);
    expect(await query(store, `SELECT position_id FROM position_events WHERE position_id = '${positionId}' AND version = ${version}`)).toHaveLength(1);
    const logged = daemon.lines().filter((l) => l['event'] === 'control');
    expect(logged.map((l) => [l['action'], l['actor']])).toEqual([
      ['pause', 'e2e-trader'],
      ['flatten', 'e2e-trader'],
    ]);

    // The receiver got the fills, the guard's state change, the kill switch, a daily summary, start and stop.
    const hook = receiver.requests.filter((r) => r.path === '/hook').map((r) => r.json<{ event: string; text: string; data: Record<string, unknown> }>());
    const fills = hook.filter((m) => m.event === 'fill');
    expect(fills.length).toBeGreaterThan(0);
    expect(fills.some((m) => m.data['origin'] === 'kill_switch')).toBe(true);
    expect(hook.filter((m) => m.event === 'guard_state').map((m) => m.data['to'])).toContain('HALTED');
    expect(hook.some((m) => m.event === 'kill_switch' && m.text.includes('e2e-trader'))).toBe(true);
    expect(hook.some((m) => m.event === 'daily_summary')).toBe(true);
    expect(hook.filter((m) => m.event === 'daemon').map((m) => m.data['state'])).toEqual(['started', 'stopped']);
    const phone = receiver.requests.filter((r) => r.path.startsWith('/bot'));
    expect(phone.length).toBeGreaterThan(0);
    expect(phone.every((r) => r.path === `/bot${BOT_TOKEN}/sendMessage` && r.json()['chat_id'] === CHAT)).toBe(true);
    expect(phone.some((r) => String(r.json()['text']).includes('ACTIVE → HALTED'))).toBe(true);
    // No token in any message or log line.
    for (const r of receiver.requests) {
      expect(r.body).not.toContain(TOKEN);
      expect(r.body).not.toContain(BOT_TOKEN);
    }
    expect(daemon.stdout()).not.toContain(TOKEN);
    expect(daemon.stdout()).not.toContain(BOT_TOKEN);
  }, 240_000);
});

describe('the control token', () => {
  it('a config naming an unset token variable is refused at start, naming the key and the variable', async () => {
    const config = path.join(tmp.dir, 'no-token.yaml');
    writeFileSync(config, runYaml(path.join(tmp.dir, 'no-token.db'), 'http://127.0.0.1:9').replace('PROPBOT_TEST_CONTROL_TOKEN', 'PROPBOT_TEST_TOKEN_NOT_SET').replace(/notify:[\s\S]*$/, ''));
    const daemon = cli(['run', '--config', config], { PROPBOT_TEST_TOKEN_NOT_SET: '' });
    const exit = await daemon.exit;
    expect(exit.code).not.toBe(0);
    expect(daemon.stderr()).toContain('status.controlTokenEnv');
    expect(daemon.stderr()).toContain('PROPBOT_TEST_TOKEN_NOT_SET, which is not set');
  });
});

