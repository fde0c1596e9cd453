/**
 * The bundle writes ASCII only and turns any other character esbuild left into `?` (scripts/bundle.ts).
 * esbuild escapes the others everywhere in the code except inside a raw template, whose text it cannot
 * change: there a dash or a "…" would reach the user as `?` (the dashboard's script showed "2.01?" for
 * "2.01×"). So every String.raw template of the shipped code is ASCII.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { REPO } from '../backtest/helpers.js';

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(path.join(dir, e.name)) : e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [path.join(dir, e.name)] : [],
  );
}

/** Each String.raw template of a file, with where it starts and its non-ASCII characters. */
function rawTemplates(file: string): Array<{ line: number; nonAscii: string[] }> {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: Array<{ line: number; nonAscii: string[] }> = [];
  const visit = (node: ts.Node): void => {
    if (ts.isTaggedTemplateExpression(node) && node.tag.getText(source) === 'String.raw') {
      const text = node.template.getText(source);
      found.push({ line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1, nonAscii: [...new Set(text.match(/[^\x00-\x7f]/g) ?? [])] });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('raw templates in the shipped code', () => {
  it('hold ASCII only, so the bundle keeps every character of them', () => {
    const all = sources(path.join(REPO, 'src')).flatMap((file) => rawTemplates(file).map((t) => ({ file: path.relative(REPO, file), ...t })));
    // The dashboard's script is one: the check sees it.
    expect(all.map((t) => t.file)).toContain(path.join('src', 'runtime', 'cockpit', 'page-script.ts'));
    expect(all.filter((t) => t.nonAscii.length > 0)).toEqual([]);
  });
});
