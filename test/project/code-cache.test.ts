/**
 * The build's bundle and its V8 code cache (src/core/bundle-loader.ts, scripts/bundle.ts), in real
 * child processes over dist/: a backtest gives the same report whatever the cache file holds (none,
 * corrupt, made for another bundle, refused by V8, good), the good one is taken, and every dist/
 * entry, plugin and worker thread shares the process's one propbot.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { propbot, REPO, tempDir } from '../backtest/helpers.js';
import { COINBASE_BTC_1H } from '../data.js';

const DIST = path.join(REPO, 'dist');
const BUILT_CACHE = path.join(DIST, 'propbot.code-cache');

function node(script: string, env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--input-type=module', '-e', script], { cwd: REPO, env: { ...process.env, ...env }, timeout: 120_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

const url = (file: string) => JSON.stringify(pathToFileURL(path.join(DIST, file)).href);

/** `propbot backtest` in-process over `dist`, with `env`; its report and the loader's verdict. */
async function backtestWith(cache: string, env: Record<string, string> = {}, dist = DIST): Promise<{ status: Record<string, unknown>; report: unknown; trades: string }> {
  const out = tempDir('pb-cc-');
  const at = (file: string) => JSON.stringify(pathToFileURL(path.join(dist, file)).href);
  const script = `
    const { runCli } = await import(${at('cli/main.js')});
    const code = await runCli(['backtest', '--strategy', 'sma-cross', '--data', ${JSON.stringify(`BTC=${COINBASE_BTC_1H}`)}, '--param', 'period=1h',
      '--from', '2019-01-01', '--to', '2019-03-01', '--out', ${JSON.stringify(out)}, '--json']);
    const { codeCacheStatus } = await import(${at('core/bundle-loader.js')});
    process.stderr.write(JSON.stringify(codeCacheStatus()) + '\\n');
    process.exitCode = code;`;
  const r = await node(script, { PROPBOT_CODE_CACHE: cache, ...env });
  expect(r.code, r.stderr).toBe(0);
  const report = JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')) as Record<string, unknown>;
  delete report['perf'];
  return { status: JSON.parse(r.stderr.trim().split('\n').pop()!) as Record<string, unknown>, report, trades: readFileSync(path.join(out, 'trades.csv'), 'utf8') };
}

/** The built cache with its header changed by `edit` and its payload by `payload`. */
function altered(edit: (header: Record<string, unknown>) => void, payload: (data: Buffer) => Buffer = (d) => d): string {
  const bytes = readFileSync(BUILT_CACHE);
  const newline = bytes.indexOf(10);
  const header = JSON.parse(bytes.subarray(0, newline).toString('utf8')) as Record<string, unknown>;
  edit(header);
  const file = path.join(tempDir('pb-cc-file-'), 'cache');
  writeFileSync(file, Buffer.concat([Buffer.from(JSON.stringify(header) + '\n'), payload(Buffer.from(bytes.subarray(newline + 1)))]));
  return file;
}

describe('the bundle and its code cache', () => {
  it('take a good cache, and run the same backtest without one, or with a corrupt, stale or refused one', async () => {
    const good = path.join(tempDir('pb-cc-file-'), 'cache');
    copyFileSync(BUILT_CACHE, good);
    const corrupt = altered(
      () => {},
      (data) => {
        for (let i = data.length >> 1; i < (data.length >> 1) + 64; i += 1) data[i] = data[i]! ^ 0xff;
        return data;
      },
    );
    const stale = altered((h) => (h['bundle'] = '0'.repeat(64)));
    // A header right in every respect over bytes V8 cannot use: V8 must refuse them itself.
    const garbage = Buffer.alloc(4096, 7);
    const refused = altered((h) => (h['data'] = (require('node:crypto') as typeof import('node:crypto')).createHash('sha256').update(garbage).digest('hex')), () => garbage);

    const runs = await Promise.all([good, path.join(tempDir('pb-cc-none-'), 'none'), corrupt, stale, refused].map((cache) => backtestWith(cache)));
    expect(runs.map((r) => r.status['rejected'] ?? r.status['skipped'])).toEqual([false, 'missing', 'corrupt', 'stale', true]);
    for (const r of runs.slice(1)) {
      expect(r.report).toEqual(runs[0]!.report);
      expect(r.trades).toBe(runs[0]!.trades);
    }
  });

  it("without a built cache that fits, writes one to the user's cache folder at exit and takes it next time", async () => {
    // A copy of the package inside the repository (its packages are found from there), without the cache.
    mkdirSync(path.join(REPO, 'test-artifacts'), { recursive: true });
    const copy = mkdtempSync(path.join(REPO, 'test-artifacts', 'code-cache-'));
    try {
      const dist = path.join(copy, 'dist');
      for (const part of ['dist', 'strategies', 'package.json']) cpSync(path.join(REPO, part), path.join(copy, part), { recursive: true });
      rmSync(path.join(dist, 'propbot.code-cache'));
      const home = tempDir('pb-cc-home-');
      const first = await backtestWith('', { PROPBOT_CACHE_DIR: home }, dist);
      expect(first.status['skipped']).toBe('missing');
      const written = readdirSync(path.join(home, 'code-cache'));
      expect(written).toEqual([expect.stringMatching(new RegExp(`-${process.version.replace(/\./g, '\\.')}-${process.arch}\\.bin$`))]);
      const second = await backtestWith('', { PROPBOT_CACHE_DIR: home }, dist);
      expect(second.status).toEqual({ file: path.join(home, 'code-cache', written[0]!), rejected: false });
      expect(second.report).toEqual(first.report);
      expect(second.trades).toBe(first.trades);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it('every dist/ entry and vendored library is the one instance of the process', async () => {
    const script = `
      const index = await import(${url('index.js')});
      const run = await import(${url('cli/backtest-run.js')});
      const { default: Decimal } = await import(${url('vendor/decimal.js.js')});
      const { z } = await import(${url('vendor/zod.js')});
      const { Observable } = await import(${url('vendor/rxjs.js')});
      let thrown;
      try { run.buildScenario(undefined, { strategy: 'sma-cross', data: ['nonsense'] }); } catch (e) { thrown = e; }
      process.stdout.write(JSON.stringify({
        error: thrown instanceof index.ConfigError,
        decimal: index.dec('1.5') instanceof Decimal,
        zod: index.z === z,
        rxjs: index.rx.of(1) instanceof Observable,
      }));`;
    const r = await node(script, {});
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ error: true, decimal: true, zod: true, rxjs: true });
  });

  it('reads a YAML file with the yaml library the bundle holds, loading none of its files from node_modules', async () => {
    const script = `
      const { createRequire } = await import('node:module');
      const { loadConfigFile } = await import(${url('core/config-file.js')});
      const { z } = await import(${url('vendor/zod.js')});
      const scenario = loadConfigFile(${JSON.stringify(path.join(REPO, 'backtest/sma-cross-btc-2019.yaml'))}, z.object({ name: z.string() }).passthrough());
      const loaded = Object.keys(createRequire(import.meta.url).cache).filter((f) => f.split(/[\\\\/]/).join('/').includes('/node_modules/yaml/'));
      process.stdout.write(JSON.stringify({ name: scenario.name, loaded }));`;
    const r = await node(script, {});
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ name: 'sma-cross-btc-2019', loaded: [] });
  });

  it('every name of every dist/ entry and vendored subpath is defined, its namespace made on first import', async () => {
    // The bundle defines most namespaces' getters only when their entry is first required (scripts/bundle.ts,
    // deferNamespaceExports): an entry whose getters were never defined would export undefined names.
    const files: string[] = [];
    const walk = (dir: string): void => {
      for (const f of readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, f.name);
        if (f.isDirectory()) walk(p);
        else if (p.endsWith('.js')) files.push(path.relative(DIST, p));
      }
    };
    walk(path.join(DIST, 'vendor'));
    const entries = ['index.js', 'cli/main.js', 'cli/backtest-run.js', 'runtime/backtest.js', 'report/write.js', ...files];
    const script = `
      const files = ${JSON.stringify(entries.map((f) => pathToFileURL(path.join(DIST, f)).href))};
      let names = 0;
      const undefinedNames = [];
      for (const f of files) {
        const m = await import(f);
        for (const [k, v] of Object.entries(m)) { names += 1; if (v === undefined) undefinedNames.push(f.slice(f.indexOf('/dist/') + 6) + ': ' + k); }
      }
      process.stdout.write(JSON.stringify({ names, undefinedNames }));`;
    const r = await node(script, {});
    expect(r.stderr).toBe('');
    const { names, undefinedNames } = JSON.parse(r.stdout) as { names: number; undefinedNames: string[] };
    expect(files.length).toBeGreaterThan(10);
    expect(names).toBeGreaterThan(2000);
    expect(undefinedNames).toEqual([]);
    // ... and the build did defer some: the bundle hands their getters to __toCommonJS.
    expect(readFileSync(path.join(DIST, 'propbot.cjs'), 'latin1').match(/^__exLazy\(/gm)?.length ?? 0).toBeGreaterThan(0);
  });

  it('a sweep on two worker threads loads the bundle in each and ranks every combination', async () => {
    const out = tempDir('pb-cc-sweep-');
    const r = await propbot(['sweep', path.join(REPO, 'backtest/sma-cross-btc-2019.yaml'), '--grid', 'fast=5,10', '--grid', 'slow=30,60', '--workers', '2', '--out', out, '--no-progress']);
    expect(r.code, r.stderr).toBe(0);
    const sweep = JSON.parse(readFileSync(path.join(out, 'sweep.json'), 'utf8')) as { trials?: unknown[]; runs?: unknown[] };
    expect((sweep.trials ?? sweep.runs)?.length).toBe(4);
  });
});
