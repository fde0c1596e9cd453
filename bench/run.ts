/**
 * `npm run bench`: runs every `bench/*.bench.ts` (or the ones named on the command line) in turn.
 * Each bench prints its figures as JSON lines `{"bench":"<name>","value":<n>,"unit":"<unit>"}` through
 * `report()`, so a machine can read them; benches measure, tests never time anything.
 */
import { readdirSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const dir = fileURLToPath(new URL('.', import.meta.url));
const wanted = process.argv.slice(2);
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f.includes(w)))
  .sort();

for (const file of files) {
  const mod = (await import(pathToFileURL(`${dir}/${file}`).href)) as { run: () => Promise<void> };
  await mod.run();
}
