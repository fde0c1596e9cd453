/**
 * Proof of sameness: every golden backtest (four examples × shipped data and the crash slice × both
 * presets) gives today the very report.json bytes frozen in test/golden/reports (apart from `perf`).
 * A speed-up that changes one fill, fee, equity sample or denial fails here.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GOLDEN_CASES, goldenFile, goldenReport, missingData, unpackGolden } from './cases.js';

/** The first line where two texts part, with its neighbours, so a failure says what changed. */
function firstDifference(want: string, got: string): string {
  const a = want.split('\n');
  const b = got.split('\n');
  for (let i = 0; i < Math.max(a.length, b.length); i += 1) {
    if (a[i] !== b[i]) return `line ${i + 1}:\n  golden: ${a[i] ?? '(end)'}\n  now:    ${b[i] ?? '(end)'}`;
  }
  return 'no difference';
}

describe('golden backtest reports', () => {
  for (const c of GOLDEN_CASES) {
    const missing = missingData(c);
    it.skipIf(missing !== null)(`${c.name}${missing ? ` (skipped: ${missing})` : ''}`, async () => {
      const file = goldenFile(c);
      expect(existsSync(file), `${file} is missing: run npm run golden`).toBe(true);
      const want = unpackGolden(readFileSync(file));
      const got = await goldenReport(c);
      if (got !== want) expect.fail(`${c.name} differs from its golden report at ${firstDifference(want, got)}`);
    });
  }
});
