/**
 * A plugin's syntax error said with its place: esbuild's own errors carry it; V8's SyntaxError on an ES
 * module import carries none, and the file is parsed again to find it. Errors that are not syntax
 * errors, and a frame inside Node's own modules, give no place.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { errorLocation } from '../../src/strategy/error-location.js';
import { findEsbuild } from '../../src/strategy/plugin-compile.js';
import { syntaxErrorPlace } from '../../src/strategy/syntax-error.js';
import { tempDir } from '../files/helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

describe('syntaxErrorPlace', () => {
  it("takes esbuild's place of a TypeScript file's error, its column counted from 1", async () => {
    const file = tmp.write('typed.ts', 'const a: number = 1;\n    const b = (a as number +;\n');
    const error = await findEsbuild().api().transform('const a: number = 1;\n    const b = (a as number +;\n', { loader: 'ts', sourcefile: file }).then(() => null, (e: unknown) => e);
    expect(await syntaxErrorPlace(error, file)).toEqual({ at: `${file}:2:29`, text: 'Unexpected ";"', lineText: 'const b = (a as number +;' });
  });

  it("finds the place of V8's SyntaxError, which names none, by parsing the file again", async () => {
    const file = tmp.write('plain.mjs', 'export const a = 1;\nlet let = 2;\n');
    const place = await syntaxErrorPlace(new SyntaxError('Unexpected strict mode reserved word'), file);
    expect(place).toMatchObject({ at: `${file}:2:5`, lineText: 'let let = 2;' });
    expect(place?.text).toMatch(/"let"/);
  });

  it('gives no place where there is no syntax error to find', async () => {
    const fine = tmp.write('fine.mjs', "import './helper.mjs';\nexport const a = 1;\n");
    // V8 complained of a file this one imports: this file parses, so no place in it is named.
    expect(await syntaxErrorPlace(new SyntaxError('Unexpected token'), fine)).toBeNull();
    expect(await syntaxErrorPlace(new TypeError('x is not a function'), fine)).toBeNull();
    expect(await syntaxErrorPlace({ errors: [{ text: 'no place', location: null }] }, fine)).toBeNull();
  });

  it('shows 120 characters of a long line, around the column', async () => {
    const long = `${'a'.repeat(200)} = 1 +;${'b'.repeat(200)}`;
    const file = tmp.write('long.mjs', `  ${long}\n`);
    const place = await syntaxErrorPlace(new SyntaxError('Unexpected token'), file);
    expect(place?.at).toBe(`${file}:1:209`);
    expect(place?.lineText).toBe(`…${long.slice(146, 266)}…`);
    expect(place?.lineText).toContain('= 1 +;');
  });
});

describe('errorLocation', () => {
  it("skips a frame inside Node's own modules, whose name holds a path after node:internal", () => {
    const error = { stack: 'SyntaxError: Unexpected token\n    at compileSourceTextModule (node:internal/modules/esm/utils:346:16)\n    at async link (node:internal/modules/esm/module_job:148:19)' };
    expect(errorLocation(error)).toBeNull();
    const user = { stack: 'Error: no\n    at node:internal/x:1:2\n    at file:///home/u/p.ts:3:20\n    at main (/home/u/q.ts:4:5)' };
    expect(errorLocation(user, '/home/u/q.ts')).toBe('/home/u/q.ts:4:5');
    expect(errorLocation(user)).toBe('/home/u/p.ts:3:20');
  });
});
