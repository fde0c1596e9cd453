import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { COINBASE_BTC_1H, ORCL_1D } from '../data.js';
import { propbot, REPO, tempDir } from './helpers.js';


describe('propbot CLI', () => {
  it('--version prints the package version and --help lists the commands', async () => {
    const pkg = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string };
    const v = await propbot(['--version']);
    expect(v).toMatchObject({ code: 0 });
    expect(v.stdout.trim()).toBe(pkg.version);
    const h = await propbot(['--help']);
    expect(h.code).toBe(0);
    for (const command of ['run', 'backtest', 'sandbox', 'sweep']) expect(h.stdout).toMatch(new RegExp(`^\\s+${command}\\b`, 'm'));
  });

  it('an unknown command or option exits 2 and says what was wrong', async () => {
    const r = await propbot(['backtset']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown command 'backtset'");
  });
});

describe('propbot backtest', () => {
  it('--rules off: no challenge rules and no guard, and the report says so at its top', async () => {
    const args = ['backtest', 'backtest/zero-cost-orcl-2001.yaml', '--balance', '1000', '--param', 'amount=300', '--no-progress'];
    const on = await propbot([...args, '--out', tempDir(), '--json']);
    expect(on.code).toBe(0);
    const ruled = JSON.parse(on.stdout);
    // With the rules on, the guard refuses entries whose 20% stop would breach the daily floor of 1000.
    expect(ruled.rules).toBe('on');
    expect(ruled.denials.total).toBeGreaterThan(0);
    expect(ruled.challenge).not.toBeNull();

    const out = tempDir();
    const off = await propbot([...args, '--rules', 'off', '--out', out]);
    expect(off.code).toBe(0);
    expect(off.stdout.split('\n')[0]).toMatch(/^RULES OFF\s+no challenge rules, no risk guard/);
    const json = JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8'));
    expect(json.rules).toBe('off');
    expect(json.denials.total).toBe(0);
    expect(json.challenge).toBeNull();
    expect(json.fills.length).toBeGreaterThan(0);
    const html = readFileSync(path.join(out, 'report.html'), 'utf8');
    const header = html.slice(html.indexOf('<header>'), html.indexOf('</header>'));
    expect(header).toMatch(/^<header><p class="rules-off" role="alert">Rules off: /);
  });

  it('runs a strategy over a data file and writes report.json and report.html', async () => {
    const out = tempDir();
    const r = await propbot(['backtest', '--strategy', 'sma-cross', '--data', `ORCL=${ORCL_1D}`, '--preset', 'zero-cost',
      '--params', '{"asset":"ORCL","period":"1D","fast":5,"slow":20,"leverage":"1","allowShort":false}', '--out', out, '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout);
    expect(json.summary.initialBalance).toBe('100000');
    for (const key of ['finalEquity', 'netPnl', 'fees', 'funding']) expect(typeof json.summary[key]).toBe('string');
    expect(json.summary.fees).toBe('0'); // zero-cost preset
    expect(json.fills.length).toBeGreaterThan(0);
    expect(json.fills.every((f: { intentId: string | null }) => typeof f.intentId === 'string' && f.intentId.startsWith('sma-cross:'))).toBe(true);
    expect(json.challenge.phase).toBe('active_evaluation');
    expect(json.perf.candles).toBe(248);
    expect(JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8'))).toEqual(json);
    expect(readFileSync(path.join(out, 'report.html'), 'utf8')).toContain('<html');
  });

  it('reads the raw CryptoDataDownload file as is and prints a summary table', async () => {
    const out = tempDir();
    const r = await propbot(['backtest', '--strategy', 'sma-cross', '--data', COINBASE_BTC_1H, '--from', '2019-09-01', '--params', '{"period":"1h"}', '--out', out]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^final equity\s+\d/m);
    // What the phase still lacks, and what a profitable day is, from report.json's challenge.
    const { challenge } = JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8'));
    expect(challenge).toMatchObject({ passed: false, failedRule: null, targetReachedAt: null, profitableDays: 0 });
    expect(r.stdout).toMatch(/^challenge\s+active_evaluation: not passed \(profit target \+5% not reached; 0 of 3 profitable days\)$/m);
    expect(r.stdout).toMatch(/^days\s+\d+ trading, 0 profitable \(pnl ≥ 0\.5% of the initial balance\)$/m);
    expect(existsSync(path.join(out, 'report.html'))).toBe(true);
  });

  it("counts the guard's doings and who closed the trades in the summary, and prints them one by one only at --log warn", async () => {
    const out = tempDir();
    const args = ['backtest', '--strategy', 'donchian-breakout', '--data', `BTC=${COINBASE_BTC_1H}`, '--from', '2019-01-01', '--out', out];
    const r = await propbot(args);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const report = JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')) as {
      trades: Array<{ netPnl: string; closeOrigin: { kind: string } | null }>;
      guardActions: Array<{ at: string; code: string }>;
    };
    // 'closed by': each kind of closing origin with its count and net pnl, most trades first.
    const kinds = new Map<string, { n: number; net: number }>();
    for (const t of report.trades) {
      if (!t.closeOrigin) continue;
      const k = kinds.get(t.closeOrigin.kind) ?? { n: 0, net: 0 };
      kinds.set(t.closeOrigin.kind, { n: k.n + 1, net: k.net + Number(t.netPnl) });
    }
    expect(kinds.size).toBeGreaterThan(1);
    const line = /^closed by\s+(.*)$/m.exec(r.stdout)![1]!;
    expect(line.split(', ').map((part) => part.split(' ')[0])).toEqual([...kinds].sort((a, b) => b[1].n - a[1].n).map(([kind]) => kind));
    for (const [kind, { n, net }] of kinds) expect(line).toContain(`${kind} ${n} (net ${net >= 0 ? '+' : ''}${net.toFixed(2)})`);
    // 'guard': the kill switch's trips, by code, and the first.
    expect(report.guardActions.length).toBeGreaterThan(0);
    expect(r.stdout).toMatch(new RegExp(`^guard\\s+${report.guardActions.length} kill-switch trips \\(kill_switch_\\w+ \\d+.*\\), the first at ${report.guardActions[0]!.at.replace(/[.]/g, '\\.')}; report\\.json lists each$`, 'm'));
    const warn = await propbot([...args, '--log', 'warn']);
    const lines = warn.stderr.trim().split('\n').map((l) => JSON.parse(l) as { level: number; event?: string });
    expect(lines.filter((l) => l.event === 'guard_action')).toHaveLength(report.guardActions.length);
    expect(lines.every((l) => l.level === 40)).toBe(true);
  });

  it('runs a scenario file; its paths are relative to the file', async () => {
    const out = tempDir();
    const r = await propbot(['backtest', path.join(REPO, 'backtest/zero-cost-orcl-2001.yaml'), '--out', out, '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).name).toBe('zero-cost-orcl-2001');
  });

  it('says which argument, file, key or parameter is wrong, with exit code 2', async () => {
    const bad = await propbot(['backtest', '--strategy', 'sma-cross', '--data', ORCL_1D, '--from', 'yesterday']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--from.*yesterday/);

    const missing = await propbot(['backtest', '--strategy', 'sma-cross', '--data', 'BTC=/nonexistent/btc.csv']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('/nonexistent/btc.csv');

    const param = await propbot(['backtest', '--strategy', 'sma-cross', '--data', `ORCL=${ORCL_1D}`, '--param', 'asset=ORCL', '--param', 'fats=3']);
    expect(param.code).toBe(2);
    expect(param.stderr).toContain('sma-cross');
    expect(param.stderr).toContain('fats');

    const dir = tempDir();
    const scenario = path.join(dir, 's.yaml');
    writeFileSync(scenario, `strategy:\n  use: sma-cross\ndata:\n  - asset: ORCL\n    file: ${ORCL_1D}\nbalanse: 5000\n`);
    const key = await propbot(['backtest', scenario]);
    expect(key.code).toBe(2);
    expect(key.stderr).toContain('line 6');
    expect(key.stderr).toContain('unknown key "balanse"');

    // A scenario's risk block is checked as the file is read: its key and line, before any run starts.
    const risky = path.join(dir, 'risk.yaml');
    writeFileSync(risky, `strategy:\n  use: sma-cross\ndata:\n  - asset: ORCL\n    file: ${ORCL_1D}\nrisk:\n  tradesPerDay: { max: 3 }\n  killSwitch:\n    share: "1.5"\n`);
    const risk = await propbot(['backtest', risky]);
    expect(risk.code).toBe(2);
    expect(risk.stderr).toContain(`${risky}:line 9: risk.killSwitch.share: expected a fraction between 0 and 1`);
  });
});

describe('propbot sweep', () => {
  it('backtests every grid combination on worker threads and ranks them with the challenge verdict', async () => {
    const out = tempDir();
    const r = await propbot(['sweep', '--strategy', 'sma-cross', '--data', `ORCL=${ORCL_1D}`, '--preset', 'zero-cost',
      '--params', '{"asset":"ORCL","period":"1D","leverage":"1","allowShort":false}', '--grid', 'fast=3,5', '--grid', 'slow=10,20',
      '--metric', 'returnPct', '--workers', '2', '--out', out, '--json']);
    expect(r.code).toBe(0);
    const sweep = JSON.parse(r.stdout);
    expect(sweep.runs).toBe(4);
    expect(sweep.failed).toBe(0);
    const combos = sweep.ranked.map((row: { params: { fast: number; slow: number } }) => `${row.params.fast}/${row.params.slow}`).sort();
    expect(combos).toEqual(['3/10', '3/20', '5/10', '5/20']);
    const returns = sweep.ranked.map((row: { summary: { returnPct: string } }) => Number(row.summary.returnPct));
    expect(returns).toEqual([...returns].sort((a, b) => b - a));
    for (const row of sweep.ranked) expect(typeof row.challenge.passed).toBe('boolean');
  });
});
