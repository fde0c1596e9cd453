#!/usr/bin/env node
// The CLI runs from the build (made by `npm install` through the `prepare` script).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const main = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
if (!existsSync(main)) {
  process.stderr.write('propbot: the build is missing (dist/cli/main.js); run `npm run build` first\n');
  process.exit(2);
}
const { runCli } = await import(main);
process.exitCode = await runCli(process.argv.slice(2));
