/**
 * Ends every `npm test` with one plain line, `N passed, N failed, N skipped`, which CI reads to count
 * the tests (vitest's own summary is not a format it knows). The three numbers are vitest's own "Tests"
 * line; a test file that failed outside its tests (it did not load, or a hook failed) is a failure of
 * its own and is added after them, as vitest's "Test Files" line counts it, so a broken file is never
 * hidden behind "0 failed".
 */
import type { Reporter, TestModule } from 'vitest/node';

export default class PlainSummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    let brokenFiles = 0;
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed += 1;
        else if (state === 'failed') failed += 1;
        else skipped += 1;
      }
      if (module.errors().length > 0) brokenFiles += 1;
    }
    const files = brokenFiles > 0 ? `, ${brokenFiles} test file${brokenFiles === 1 ? '' : 's'} failed outside their tests` : '';
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped${files}\n`);
  }
}
