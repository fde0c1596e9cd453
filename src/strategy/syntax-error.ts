/**
 * Where a plugin's syntax error is, to say it the way an editor would (`file:line:column`, columns from
 * 1) with the line's text. A TypeScript plugin's comes from esbuild, which knows the place. V8's
 * SyntaxError on importing an ES module knows none: Node 20 prints the place only for an error nobody
 * caught, and its stack holds nothing but Node's own frames. So the file is parsed again with esbuild,
 * which stops at the same error and says where.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { findEsbuild } from './plugin-compile.js';

export interface SyntaxErrorPlace {
  /** `file:line:column`, the column counted from 1. */
  readonly at: string;
  readonly text: string;
  /** The line as written, without its indentation; at most 120 characters of it, around the column. */
  readonly lineText: string;
}

interface EsbuildMessage {
  readonly text: string;
  readonly location: { readonly file: string; readonly line: number; readonly column: number; readonly lineText: string } | null;
}

const JS_LOADERS: Readonly<Record<string, string>> = { '.js': 'js', '.mjs': 'js', '.cjs': 'js', '.jsx': 'jsx', '.tsx': 'tsx' };

/** The place of `error` if it is a syntax error, in `file` or a file it imports; else null. */
export async function syntaxErrorPlace(error: unknown, file: string): Promise<SyntaxErrorPlace | null> {
  const found = firstPlaced(error);
  if (found) return found;
  if (!(error instanceof SyntaxError)) return null;
  try {
    await findEsbuild().api().transform(readFileSync(file, 'utf8'), { loader: JS_LOADERS[path.extname(file)] ?? 'ts', format: 'esm', sourcefile: file });
  } catch (parsed) {
    return firstPlaced(parsed);
  }
  // esbuild reads the file without error: V8's complaint is one esbuild does not make, or it is in a file this one imports.
  return null;
}

/** esbuild's first message with a place (a failed transform or build carries them as `errors`). */
function firstPlaced(error: unknown): SyntaxErrorPlace | null {
  const errors = (error as { errors?: unknown } | null)?.errors;
  if (!Array.isArray(errors)) return null;
  for (const e of errors as EsbuildMessage[]) {
    const l = e?.location;
    if (l && typeof l.file === 'string' && typeof l.line === 'number' && typeof l.column === 'number') {
      return { at: `${l.file}:${l.line}:${l.column + 1}`, text: String(e.text), lineText: around(String(l.lineText ?? ''), l.column) };
    }
  }
  return null;
}

const SHOWN = 120;

/** The line without its indentation; of a longer line (a minified file), the 120 characters around `column`. */
function around(line: string, column: number): string {
  const text = line.trimStart();
  if (text.length <= SHOWN) return text.trimEnd();
  const at = Math.max(0, column - (line.length - text.length));
  const start = Math.max(0, Math.min(at - SHOWN / 2, text.length - SHOWN));
  return `${start > 0 ? '…' : ''}${text.slice(start, start + SHOWN)}${start + SHOWN < text.length ? '…' : ''}`;
}
