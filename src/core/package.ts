/**
 * Where the package's own files are: the shipped examples, datasets and configs, found the same way
 * from src/ under tsx and from dist/ (the bundle gives each module its dist/ file as its URL).
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package root (where `strategies/`, `backtest/`, `config/` and `dist/` ship). */
export const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The names of the files a package folder (`strategies`, `backtest/data`) ships with one of `extensions`, sorted. */
export function shippedFiles(folder: string, extensions: readonly string[]): string[] {
  try {
    return readdirSync(path.join(PACKAGE_ROOT, folder))
      .filter((name) => extensions.some((ext) => name.endsWith(ext)))
      .sort();
  } catch {
    return [];
  }
}
