import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const REPO = path.resolve(__dirname, '../..');

export function tempDir(prefix = 'pb-bt-'): string {
  return mkdtempSync(path.join(tmpdir(), prefix));
}

export interface SynthCandle {
  time: number;
  open: string;
  high: string;
  low: string;
  close: string;
}

/** Write candles in propbot's own CSV layout (`timestamp_ms,open,high,low,close,volume`). */
export function writeCandles(dir: string, name: string, candles: readonly SynthCandle[]): string {
  const file = path.join(dir, name);
  writeFileSync(file, ['timestamp_ms,open,high,low,close,volume', ...candles.map((c) => `${c.time},${c.open},${c.high},${c.low},${c.close},1`)].join('\n') + '\n');
  return file;
}

/** n rising 1-minute candles whose close never equals the next open: open 100+2i, close 101+2i. */
export function risingCandles(n: number, start = Date.UTC(2021, 0, 4)): SynthCandle[] {
  return Array.from({ length: n }, (_, i) => ({
    time: start + i * 60_000,
    open: String(100 + 2 * i),
    high: String(101.5 + 2 * i),
    low: String(99.5 + 2 * i),
    close: String(101 + 2 * i),
  }));
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** `propbot …` as a real child process, from the build that `npm test` makes first. */
export function propbot(args: string[], cwd = REPO): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [path.join(REPO, 'bin/propbot.js'), ...args], { cwd, timeout: 120_000, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** `tsc -p project` with the repository's TypeScript, as a user's `npx tsc -p .` would check their folder. */
export function tsc(project: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [path.join(REPO, 'node_modules/typescript/bin/tsc'), '-p', project], { timeout: 120_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, output: `${stdout}${stderr}` }),
    );
  });
}
