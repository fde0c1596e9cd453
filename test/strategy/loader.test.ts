import { describe, expect, it } from 'vitest';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { VirtualClock } from '../../src/core/clock.js';
import { ConfigError } from '../../src/core/errors.js';
import { ManualFeed } from '../../src/feed/manual-feed.js';
import { marketSnapshot } from '../../src/feed/snapshots.js';
import type { OrderIntent } from '../../src/strategy/intents.js';
import { loadStrategy, looksLikePath } from '../../src/strategy/loader.js';
import { StrategyRunner } from '../../src/strategy/runner.js';
import { makeMarket } from '../feed/fixtures.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const fixture = (name: string) => path.join(here, 'fixtures', name);

describe('loadStrategy', () => {
  it('loads a TypeScript plugin, validates its params and runs it', async () => {
    const loaded = await loadStrategy('./fixtures/ok-plugin.ts', { cwd: here, params: { asset: 'ETH', count: 1 } });
    expect(loaded.strategy.name).toBe('fixture-ok');
    expect(loaded.params).toEqual({ asset: 'ETH', count: 1 });
    expect(loaded.assets).toEqual(['ETH']);
    expect(loaded.source).toBe(fixture('ok-plugin.ts'));

    const feed = new ManualFeed();
    const clock = new VirtualClock(0);
    const runner = new StrategyRunner({ feed, clock, accountId: 'acc' });
    runner.add(loaded);
    const got: OrderIntent[] = [];
    runner.intents$.subscribe((i) => got.push(i));
    runner.start();
    for (let m = 0; m < 4; m += 1) feed.pushMarket(marketSnapshot(makeMarket('ETH', String(100 + m)), m * 60_000));
    expect(got.map((i) => [i.kind, i.asset, i.strategy, i.note])).toEqual([['open', 'ETH', 'fixture-ok', 'candle 0']]);
    expect(runner.status()[0]!.state).toBe('completed');
  });

  it('loads a JavaScript plugin', async () => {
    const loaded = await loadStrategy(fixture('plain-plugin.mjs'));
    expect(loaded.strategy.name).toBe('fixture-js');
    expect(loaded.params).toEqual({ level: 1 });
  });

  it('loads a plugin package installed in the user directory', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'propbot-pkg-'));
    try {
      const pkg = path.join(dir, 'node_modules', 'propbot-strategy-demo');
      mkdirSync(pkg, { recursive: true });
      writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ name: 'propbot-strategy-demo', version: '1.0.0', type: 'module', main: 'index.js' }));
      writeFileSync(
        path.join(pkg, 'index.js'),
        `export default { [Symbol.for('propbot.strategy')]: true, apiVersion: 1, name: 'pkg-demo', version: '1.0.0',
           params: { safeParse: (v) => ({ success: true, data: v }), strict() { return this; }, shape: {} },
           assets: ['BTC'], setup: () => null };`,
      );
      const loaded = await loadStrategy('propbot-strategy-demo', { cwd: dir });
      expect(loaded.strategy.name).toBe('pkg-demo');
      expect(loaded.source).toBe('propbot-strategy-demo');
      await expect(loadStrategy('propbot-strategy-missing', { cwd: dir })).rejects.toThrow(
        `strategy: "propbot-strategy-missing" is not a shipped example (challenge-aware, donchian-breakout, mean-reversion, sma-cross), a file path`,
      );
      // Found, but one of its own imports is not: that import is named, not the package.
      const broken = path.join(dir, 'node_modules', 'propbot-strategy-broken');
      mkdirSync(broken, { recursive: true });
      writeFileSync(path.join(broken, 'package.json'), JSON.stringify({ name: 'propbot-strategy-broken', version: '1.0.0', type: 'module', main: 'index.js' }));
      writeFileSync(path.join(broken, 'index.js'), "import 'left-pad-never-installed';\nexport default null;\n");
      await expect(loadStrategy('propbot-strategy-broken', { cwd: dir, usePath: 'strategies.2.use' })).rejects.toThrow(
        /^strategies\.2\.use: propbot-strategy-broken: failed to load: Cannot find package 'left-pad-never-installed'/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('says what is wrong with a plugin', async () => {
    await expect(loadStrategy('./nope.ts', { cwd: here })).rejects.toThrow(/strategy file not found: .*nope\.ts/);
    await expect(loadStrategy(fixture('not-a-strategy.ts'))).rejects.toThrow(
      /not-a-strategy\.ts: the default export is not a strategy made with defineStrategy\(\)/,
    );
    await expect(loadStrategy(fixture('throws-on-import.ts'))).rejects.toThrow(/throws-on-import\.ts: failed to load: plugin top-level failure/);
    await expect(loadStrategy(fixture('future-api.mjs'))).rejects.toThrow(/written for strategy API 99, this propbot runs API 1/);
    const bad = await loadStrategy(fixture('ok-plugin.ts'), {
      params: { count: 0 },
      configFile: 'config/paper.yaml',
      configPath: 'strategies.0.params',
    }).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(ConfigError);
    expect((bad as ConfigError).path).toBe('strategies.0.params.count');
    expect((bad as Error).message).toMatch(/config\/paper\.yaml: strategies\.0\.params\.count: strategy "fixture-ok": parameter "count"/);
  });

  it('tells paths from package names', () => {
    expect(looksLikePath('./a')).toBe(true);
    expect(looksLikePath('/abs/x.ts')).toBe(true);
    expect(looksLikePath('strategies/sma-cross.ts')).toBe(true);
    expect(looksLikePath('propbot-strategy-x')).toBe(false);
    expect(looksLikePath('@scope/strategy')).toBe(false);
  });
});
