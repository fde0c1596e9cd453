/**
 * A plugin importing a name its module does not export (`import { SMAA } from 'propbot'`). V8's
 * SyntaxError names the module and the name but no place, and esbuild, which finds a syntax error's
 * place, parses the file without complaint. The place is the plugin's line that names the import.
 */
import { readFileSync } from 'node:fs';

const MISSING = /The requested module '([^']+)' does not provide an export named '([^']+)'/;

export interface MissingExport {
  readonly module: string;
  readonly name: string;
  /** 1-based line of `file` that names it, when `file` does (the import may be in a file it imports). */
  readonly line?: number;
}

export function missingExport(error: unknown, file: string): MissingExport | undefined {
  const m = MISSING.exec((error as { message?: unknown } | null)?.message?.toString() ?? '');
  if (!m) return undefined;
  const [, module, name] = m as unknown as [string, string, string];
  let lines: string[];
  try {
    lines = readFileSync(file, 'utf8').split('\n');
  } catch {
    return { module, name };
  }
  const word = new RegExp(`(^|[^\\w$])${name.replace(/[$]/g, '\\$')}($|[^\\w$])`);
  const index = lines.findIndex((l) => word.test(l));
  return index >= 0 ? { module, name, line: index + 1 } : { module, name };
}
