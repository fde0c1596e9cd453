/**
 * The page's data as the report's <script> takes it: JSON with nothing that ends the element or a
 * line early, and the chart lines on whole seconds.
 */
import { describe, expect, it } from 'vitest';
import { toChartTime } from '../../src/report/downsample.js';
import { jsonForScript } from '../../src/report/html.js';

describe('jsonForScript', () => {
  it('escapes <, >, & and the line separators, and parses back to the same value', () => {
    const value = { name: '</script><!-- a & b \u2028 c \u2029', n: [1, 2.5], nested: { s: '<<>>&&' } };
    const text = jsonForScript(value);
    expect(text).not.toMatch(/[<>&\u2028\u2029]/);
    expect(text).toContain('\\u003c/script\\u003e\\u003c!-- a \\u0026 b \\u2028 c \\u2029');
    expect(JSON.parse(text)).toEqual(value);
  });
});

describe('toChartTime', () => {
  it('puts points on whole seconds, keeps the last of a second, and drops a point that goes back in time', () => {
    expect(
      toChartTime([
        [1_000, 1],
        [1_400, 2],
        [2_000, 3],
        [1_999, 4],
        [5_000, 5],
        [5_999, 6],
      ]),
    ).toEqual([
      [1, 2],
      [2, 3],
      [5, 6],
    ]);
    expect(toChartTime([])).toEqual([]);
  });
});
