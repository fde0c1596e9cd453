/**
 * What `propbot backtest` and `propbot sweep` read from their flags, and the parsing both share. It sits
 * below the command files and their run bodies so that each imports it and neither imports the other.
 */
import { existsSync } from 'node:fs';
import type { Decimal } from 'decimal.js';
import { ConfigError } from '../core/errors.js';
import { dataUrlProblem, isDataUrl } from '../feed/files/remote.js';
import { dataFileNotFound, resolveDataFile, type LogLevel } from '../runtime/scenario.js';

export interface BacktestCliOptions {
  strategy?: string;
  data?: string[];
  market?: string;
  from?: number;
  to?: number;
  params?: Record<string, unknown>;
  param?: string[];
  preset?: 'default' | 'zero-cost';
  rules?: 'on' | 'off';
  balance?: Decimal;
  phase?: string;
  out?: string;
  json?: boolean;
  progress?: boolean;
  html?: boolean;
  log?: LogLevel;
}

/** Split `--data` values into (asset?, file) pairs of files that are there; a file may be an http(s) URL, kept as it is. */
export function parseDataArgs(values: readonly string[]): Array<{ asset?: string; file: string }> {
  const out: Array<{ asset?: string; file: string }> = [];
  for (const value of values) {
    for (const item of value.split(',').map((s) => s.trim()).filter(Boolean)) {
      const m = /^([A-Za-z0-9._-]{1,20})=(.+)$/.exec(item);
      const entry = m && !existsSync(item) ? { asset: m[1]!.toUpperCase(), file: m[2]! } : { file: item };
      const problem = dataUrlProblem(entry.file);
      if (problem !== null) throw new ConfigError('--data', problem);
      if (isDataUrl(entry.file)) {
        out.push(entry);
        continue;
      }
      // A shipped dataset is found by its name from any folder, as in a config file.
      const file = resolveDataFile(entry.file, process.cwd());
      if (!existsSync(file)) throw new ConfigError('--data', dataFileNotFound(file));
      out.push({ ...entry, file });
    }
  }
  if (out.length === 0) throw new ConfigError('--data', 'expected at least one candle file');
  return out;
}
