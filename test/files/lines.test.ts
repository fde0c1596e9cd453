import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { countLines, readLinesBackward, readLinesForward } from '../../src/feed/files/lines.js';
import { tempDir } from './helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

function list<T>(it: Iterable<T>): T[] {
  return [...it];
}

describe('line readers', () => {
  it('read the same lines forwards and backwards, across chunk boundaries, with LF or CRLF', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.string({ unit: fc.constantFrom('a', 'b', 'é', ',', '1'), maxLength: 12 }), { minLength: 1, maxLength: 30 }),
        fc.constantFrom('\n', '\r\n'),
        fc.boolean(),
        fc.integer({ min: 1, max: 9 }),
        async (lines, eol, finalEol, chunk) => {
          const text = lines.join(eol) + (finalEol ? eol : '');
          const file = tmp.write(`l${n++}.txt`, text);
          const total = countLines(file);
          const forward = list(readLinesForward(file));
          const backward = list(readLinesBackward(file, 0, total, chunk));
          // a final line break ends the last line; an empty file has no line at all
          const body = text.endsWith(eol) ? text.slice(0, -eol.length) : text;
          const expected = text === '' ? [] : body.split(eol);
          expect(total).toBe(expected.length);
          expect(forward.map((l) => [l.line, l.text])).toEqual(expected.map((t, i) => [i + 1, t]));
          expect(backward.reverse()).toEqual(forward);
        },
      ),
      { numRuns: 150 },
    );
  });
});
