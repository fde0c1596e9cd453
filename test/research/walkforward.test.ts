import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { planWindows, parseDuration, formatDuration } from '../../src/research/walkforward.js';
import { noBest } from '../../src/research/walkforward-report.js';
import { tempDir } from '../backtest/helpers.js';
import { BTC, propbot } from './cli.js';

const DAY = 86_400_000;
const HOUR = 3_600_000;

describe('walk-forward windows', () => {
  const range = { from: Date.UTC(2018, 0, 1), to: Date.UTC(2018, 0, 1) + 100 * DAY };

  it('rolls train and test slices along the data after the warm-up, test right after train', () => {
    const w = planWindows(range, { trainMs: 30 * DAY, testMs: 10 * DAY, warmupMs: 2 * DAY });
    expect(w).toHaveLength(6);
    w.forEach((x, i) => {
      expect(x.trainFrom).toBe(range.from + 2 * DAY + i * 10 * DAY);
      expect(x.trainTo - x.trainFrom).toBe(30 * DAY);
      expect(x.testFrom).toBe(x.trainTo);
      expect(x.testTo - x.testFrom).toBe(10 * DAY);
      expect(x.testTo).toBeLessThanOrEqual(range.to);
    });
  });

  it('anchored: every train slice starts at the first data after the warm-up and grows', () => {
    const w = planWindows(range, { trainMs: 30 * DAY, testMs: 20 * DAY, stepMs: 20 * DAY, anchored: true, warmupMs: DAY });
    expect(w.map((x) => x.trainFrom)).toEqual(w.map(() => range.from + DAY));
    expect(w.map((x) => (x.trainTo - x.trainFrom) / DAY)).toEqual([30, 50, 70]);
  });

  it('refuses slices shorter than the warm-up, and data too short for one window, with the numbers', () => {
    expect(() => planWindows(range, { trainMs: 30 * HOUR, testMs: 10 * DAY, warmupMs: 61 * HOUR })).toThrow("--train: 30h is shorter than the strategy's warm-up of 61h");
    expect(() => planWindows(range, { trainMs: 30 * DAY, testMs: 2 * DAY, warmupMs: 3 * DAY })).toThrow("--test: 2d is shorter than the strategy's warm-up of 3d");
    expect(() => planWindows(range, { trainMs: 90 * DAY, testMs: 15 * DAY, warmupMs: DAY })).toThrow(/no window fits: warm-up 1d \+ train 90d \+ test 15d = 106d, but the data covers 100d/);
  });

  it('reads and writes durations', () => {
    expect(parseDuration('60d', '--train')).toBe(60 * DAY);
    expect(parseDuration('2w', '--train')).toBe(14 * DAY);
    expect(formatDuration(61 * HOUR)).toBe('61h');
    expect(() => parseDuration('60 days', '--train')).toThrow(/--train: expected a duration like 60d/);
    expect(() => parseDuration('0d', '--test')).toThrow(/^--test: must be longer than 0, got "0d"$/);
  });
});

describe('propbot walkforward', () => {
  it('searches each train slice, trades the winner on the unseen slice after it, and reports the stitched run', async () => {
    const out = tempDir('pb-wf-');
    const r = await propbot([
      'walkforward', '--strategy', 'sma-cross', '--data', `BTC=${BTC}`,
      '--params', '{"period":"1h","amount":"20000","leverage":"3"}',
      '--from', '2018-03-01', '--to', '2018-03-25', '--train', '8d', '--test', '4d',
      '--grid', 'fast=3,6', '--grid', 'slow=12', '--workers', '2', '--out', out, '--json',
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const wf = JSON.parse(r.stdout);
    expect(wf).toEqual(JSON.parse(readFileSync(path.join(out, 'walkforward.json'), 'utf8')));
    expect(wf.format).toBe('propbot-walkforward');
    // slow 12 on 1h: 13 candles of warm-up before every slice
    expect(wf.layout.warmupMs).toBe(13 * HOUR);
    expect(wf.windows).toHaveLength(3);
    for (const w of wf.windows) {
      expect(w.test.fromMs).toBe(w.train.toMs);
      expect(w.train.toMs - w.train.fromMs).toBe(8 * DAY);
      expect(w.trials).toBe(2);
      expect([3, 6]).toContain(w.best.params.fast);
      expect(w.inSample).not.toBeNull();
      expect(w.outOfSample).not.toBeNull();
    }
    // the stitched run covers the test slices only, on one account
    const first = wf.windows[0].test.fromMs;
    const last = wf.windows[2].test.toMs;
    expect(wf.outOfSample.period.startMs).toBe(first);
    expect(wf.outOfSample.equity.every((e: { time: number }) => e.time >= first && e.time < last)).toBe(true);
    // each window starts where the one before ended: the equity is continuous across slices
    for (let i = 1; i < 3; i += 1) expect(wf.windows[i].outOfSample.startEquity).toBe(wf.windows[i - 1].outOfSample.endEquity);
    expect(wf.windows[2].outOfSample.endEquity).toBe(wf.outOfSample.summary.finalEquity);
    expect(typeof wf.outOfSample.challenge.passed).toBe('boolean');
    // efficiency: out-of-sample return per day over the mean in-sample return per day
    const isPerDay = wf.windows.reduce((a: number, w: { inSample: { returnPct: number } }) => a + w.inSample.returnPct / 8, 0) / 3;
    if (isPerDay > 0) expect(wf.efficiency).toBeCloseTo(Number(wf.outOfSample.summary.returnPct) / 12 / isPerDay, 5);
    else expect(wf.efficiency).toBeNull();
    const html = readFileSync(path.join(out, 'walkforward.html'), 'utf8');
    expect(html).toContain('Out-of-sample verdict');
    expect(html.match(/<tr><td class="l">\d+<\/td>/g)).toHaveLength(3);
    expect(existsSync(path.join(out, 'out-of-sample', 'report.html'))).toBe(true);
    const report = JSON.parse(readFileSync(path.join(out, 'out-of-sample', 'report.json'), 'utf8'));
    // no trade before the first test slice (warm-up only), and none in a slice's window but its own
    for (const f of report.fills) {
      const t = Date.parse(f.time);
      expect(t).toBeGreaterThanOrEqual(first);
      expect(t).toBeLessThan(last);
    }
  }, 300_000);

  it('without --workers, sizes its workers from every window\'s runs, counted before the first, as sweep does', async () => {
    const args = [
      'walkforward', '--strategy', 'sma-cross', '--data', `BTC=${BTC}`, '--params', '{"period":"1h","amount":"20000","leverage":"3"}',
      '--from', '2018-03-01', '--to', '2018-03-25', '--train', '8d', '--test', '4d', '--grid', 'fast=3,6', '--grid', 'slow=12', '--json',
    ];
    const debug = { env: { PROPBOT_DEBUG: '1' } };
    const auto = await propbot([...args, '--out', tempDir('pb-wf-auto-')], debug);
    expect(auto.code, auto.stderr).toBe(0);
    // 3 windows × 2 combinations; one worker first, a second only if the runs show it pays.
    const cores = availableParallelism();
    expect(auto.stderr).toContain(cores > 1 ? `propbot: workers: 1 to start, up to 2 once the runs show another would pay (6 runs)` : 'propbot: workers: 1 (the cores; 6 runs)');
    // The same run on two workers, its table on the console this time.
    const twoOut = tempDir('pb-wf-two-');
    const fixed = await propbot([...args.filter((a) => a !== '--json'), '--workers', '2', '--out', twoOut], debug);
    expect(fixed.stderr).toContain('propbot: workers: 2 (--workers; 6 runs)');
    const fixedJson = readFileSync(path.join(twoOut, 'walkforward.json'), 'utf8');
    const windows = (text: string) => JSON.parse(text).windows.map((w: { best: { params: unknown }; outOfSample: unknown }) => [w.best.params, w.outOfSample]);
    expect(windows(auto.stdout)).toEqual(windows(fixedJson));
    // A window that passed in sample says on which day: the slice's run goes on after the pass.
    const passed = (JSON.parse(fixedJson).windows as Array<{ window: number; inSample: { challenge: { passed: boolean; daysToTarget: number | null } } }>).filter((w) => w.inSample.challenge.passed);
    expect(passed.length).toBeGreaterThan(0);
    for (const w of passed) expect(fixed.stdout).toMatch(new RegExp(`^${w.window} .* IS +-?[\\d.]+% pass day ${w.inSample.challenge.daysToTarget} +OOS `, 'm'));
  }, 300_000);

  it('refuses a train slice shorter than the strategy warm-up, naming both lengths', async () => {
    const r = await propbot([
      'walkforward', '--strategy', 'sma-cross', '--data', `BTC=${BTC}`, '--params', '{"period":"1h"}',
      '--from', '2018-03-01', '--to', '2018-03-25', '--train', '10h', '--test', '4d', '--grid', 'fast=3,6', '--grid', 'slow=12,30',
    ]);
    expect(r.code).toBe(2);
    // the longest warm-up of the space: slow 30 → 31 candles of 1h
    expect(r.stderr).toContain("--train: 10h is shorter than the strategy's warm-up of 31h");
  }, 120_000);

  it('pairs the strategy refuses are not run on any window, as in sweep', async () => {
    const r = await propbot([
      'walkforward', '--strategy', 'sma-cross', '--data', `BTC=${BTC}`, '--params', '{"period":"1h"}', '--json', '--out', tempDir(),
      '--from', '2018-03-01', '--to', '2018-05-01', '--train', '20d', '--test', '10d', '--grid', 'fast=5,20', '--grid', 'slow=10,30',
    ]);
    expect(r.code).toBe(0);
    const wf = JSON.parse(r.stdout);
    // fast 20 with slow 10 is refused (fast must be shorter than slow): three runs per window, none failed.
    expect(wf.windows.map((w: { trials: number }) => w.trials)).toEqual(wf.windows.map(() => 3));
  }, 120_000);

  it('trials that fail are listed with their error and the run exits 1, leaving an earlier walkforward.json alone', async () => {
    const out = tempDir();
    const earlier = '{"an earlier":"good run"}\n';
    writeFileSync(path.join(out, 'walkforward.json'), earlier);
    // 15-minute candles cannot be built from the hourly file: every trial of every window fails.
    const r = await propbot([
      'walkforward', '--strategy', 'sma-cross', '--data', `BTC=${BTC}`, '--params', '{"period":"15m"}', '--out', out,
      '--from', '2018-03-01', '--to', '2018-04-10', '--train', '10d', '--test', '5d', '--grid', 'fast=3,6', '--grid', 'slow=12',
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^window 1\/\d+: 2 trials on the train slice, best none \(all 2 failed\)$/m);
    expect(r.stdout).toMatch(/^1 +\S+ → \S+ +none \(all 2 failed\)/m);
    const windows = (r.stdout.match(/^\d+ +\d{4}-/gm) ?? []).length;
    expect(windows).toBeGreaterThan(1);
    expect(r.stderr).toContain(`${2 * windows} of ${2 * windows} runs failed (1 distinct error):`);
    expect(r.stderr).toContain('sma-cross asks for 15m candles of BTC');
    expect(readFileSync(path.join(out, 'walkforward.json'), 'utf8')).toBe(earlier);
    const failed = JSON.parse(readFileSync(path.join(out, 'walkforward-failed.json'), 'utf8'));
    expect(failed.windows.map((w: { trials: number; failed: number }) => [w.trials, w.failed])).toEqual(failed.windows.map(() => [2, 2]));
    expect(readFileSync(path.join(out, 'walkforward-failed.html'), 'utf8')).toContain('none (all 2 failed)');
  }, 120_000);
});

describe('noBest: why a window has no best combination', () => {
  it('counts what failed, what the constraints excluded and what gave the objective no value', () => {
    expect(noBest({ trials: 4, failed: 4, excluded: 0 })).toBe('none (all 4 failed)');
    expect(noBest({ trials: 4, failed: 1, excluded: 2 })).toBe('none (1 failed, 2 excluded by the constraints, 1 without a value for the objective)');
    expect(noBest({ trials: 3, failed: 0, excluded: 3 })).toBe('none (3 excluded by the constraints)');
    expect(noBest({ trials: 0, failed: 0, excluded: 0 })).toBe('none (no trials)');
  });
});

describe('walk-forward report', () => {
  it('follows the stitched account through its phases, and marks the windows after its failure', async () => {
    const { buildReportJson } = await import('../../src/report/report-json.js');
    const { buildWalkForwardJson, renderWalkForwardHtml } = await import('../../src/research/walkforward-report.js');
    const { Dec } = await import('../../src/core/decimal.js');
    const t0 = Date.UTC(2018, 2, 1);
    const passAt = t0 + 5 * DAY;
    const failAt = t0 + 12 * DAY;
    const oos = {
      name: 'oos',
      startTime: t0,
      endTime: t0 + 30 * DAY,
      initialBalance: new Dec(100_000),
      equity: [
        { time: t0, equity: new Dec(100_000) },
        { time: passAt, equity: new Dec(106_000) },
        { time: failAt, equity: new Dec(99_000) },
      ],
      fills: [],
      trades: [],
      denials: [],
      perf: { snapshots: 0, candles: 0, wallMs: 0 },
      challenge: {
        phase: 'active_evaluation',
        profitTargetPct: new Dec(5),
        maxDailyDrawdownPct: new Dec(5),
        maxTotalDrawdownPct: new Dec(10),
        maxTrailingDrawdownPct: null,
        minProfitableDays: null,
        consistencyLimitPct: null,
        profitableDayPct: new Dec('0.5'),
        failure: { rule: 'max_daily_drawdown', at: failAt },
        transitions: [
          { at: passAt, from: 'active_evaluation', to: 'active_verification' },
          { at: failAt, from: 'active_verification', to: 'failed' },
        ],
      },
    };
    const window = (i: number) => ({
      trainFrom: t0 - 20 * DAY + i * 10 * DAY,
      trainTo: t0 + i * 10 * DAY,
      testFrom: t0 + i * 10 * DAY,
      testTo: t0 + (i + 1) * 10 * DAY,
      best: { index: 0, params: { fast: 5 }, ok: true },
      search: { trials: [], ranked: [], excluded: [] },
      inSample: { returnPct: 8, maxDrawdownPct: 2, sharpe: 3, trades: 5, startEquity: '100000', endEquity: '108000', objective: 8, challenge: { passed: true, failedRule: null, daysToTarget: 4 } },
      outOfSample: { returnPct: 0, maxDrawdownPct: 0, sharpe: null, trades: 0, startEquity: '1', endEquity: '1' },
      efficiency: 0.5,
    });
    const result = {
      range: { from: t0 - 30 * DAY, to: t0 + 30 * DAY, periodMs: HOUR },
      warmupMs: DAY,
      windows: [window(0), window(1), window(2)],
      outOfSample: oos,
      outOfSampleReport: buildReportJson(oos as never),
      efficiency: 0.1,
    };
    const json = buildWalkForwardJson(result as never, { name: 'n', strategy: 's', objective: 'returnPct', method: 'grid', seed: 1, constraints: [], grid: {}, trainMs: 20 * DAY, testMs: 10 * DAY, stepMs: 10 * DAY, anchored: false });
    expect(json.outOfSample!.verdict).toBe('PASSED active_evaluation, then FAILED active_verification (max_daily_drawdown)');
    expect(json.outOfSample!.journey).toBe('passed active_evaluation at 2018-03-06 00:00, then FAILED active_verification by max_daily_drawdown at 2018-03-13 00:00');
    expect(json.inSample.verdict).toBe('3 of 3 windows passed in sample');
    // failed on day 12: windows 1 and 2 traded, window 3 (from day 20) could not
    expect(json.windows.map((w) => w.accountFailedBefore)).toEqual([false, false, true]);
    expect(json.windows[2]!.efficiency).toBeNull();
    const html = renderWalkForwardHtml(json, result as never);
    expect(html).toContain('account failed earlier');
    expect(html).toContain('<td class="l">PASSED on day 4</td>');
    expect(html).toContain('<span class="fail">PASSED active_evaluation, then FAILED');
    // The windows table: the objective's own column only when it is not the in-sample return, and
    // every row as wide as the header.
    const table = (page: string) => {
      const t = /<table id="windows">([\s\S]*?)<\/table>/.exec(page)![1]!;
      const heads = [...t.matchAll(/<th[^>]*>([^<]*)<\/th>/g)].map((m) => m[1]);
      const widths = [...t.matchAll(/<tr><td[\s\S]*?<\/tr>/g)].map((m) => (m[0].match(/<td/g) ?? []).length);
      return { heads, widths };
    };
    const byReturn = table(html);
    expect(byReturn.heads.slice(0, 6)).toEqual(['#', 'train (UTC)', 'test (UTC)', 'best parameters', 'IS return', 'IS max dd']);
    expect(new Set(byReturn.widths)).toEqual(new Set([byReturn.heads.length]));
    const bySharpe = table(renderWalkForwardHtml({ ...json, objective: { ...json.objective, name: 'sharpe' } }, result as never));
    expect(bySharpe.heads.slice(3, 6)).toEqual(['best parameters', 'sharpe', 'IS return']);
    expect(new Set(bySharpe.widths)).toEqual(new Set([bySharpe.heads.length]));
  });
});
