/**
 * `npm run golden [name-filter]`: (re)write the golden reports of `test/golden/cases.ts`. Run it only
 * when a commit changes results on purpose, and say in that commit which rule makes the new numbers
 * right; `--check` compares instead of writing (what the test does, from the command line) and
 * leaves both texts of a case that differs in out/golden/ for a diff.
 */
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { GOLDEN_CASES, GOLDEN_DIR, goldenFile, goldenReport, missingData, packGolden, unpackGolden } from '../test/golden/cases.js';

const args = process.argv.slice(2);
const check = args.includes('--check');
const filters = args.filter((a) => !a.startsWith('--'));
mkdirSync(GOLDEN_DIR, { recursive: true });
let failed = 0;
for (const c of GOLDEN_CASES) {
  if (filters.length > 0 && !filters.some((f) => c.name.includes(f))) continue;
  const missing = missingData(c);
  if (missing) {
    process.stdout.write(`skip ${c.name}: ${missing}\n`);
    continue;
  }
  const started = performance.now();
  const text = await goldenReport(c);
  const ms = Math.round(performance.now() - started);
  const file = goldenFile(c);
  if (check) {
    const same = existsSync(file) && unpackGolden(readFileSync(file)) === text;
    if (!same) {
      failed += 1;
      const dir = path.resolve('out/golden');
      mkdirSync(dir, { recursive: true });
      if (existsSync(file)) writeFileSync(path.join(dir, `${c.name}.golden.json`), unpackGolden(readFileSync(file)));
      writeFileSync(path.join(dir, `${c.name}.now.json`), text);
    }
    process.stdout.write(`${same ? 'same' : 'DIFFERENT'} ${c.name} (${ms} ms)\n`);
  } else {
    const bytes = packGolden(text);
    writeFileSync(file, bytes);
    process.stdout.write(`wrote ${path.relative(process.cwd(), file)}: ${text.length} bytes, ${bytes.length} gzipped (${ms} ms)\n`);
  }
}
process.exitCode = failed > 0 ? 1 : 0;
