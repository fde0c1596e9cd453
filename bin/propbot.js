#!/usr/bin/env -S node --v8-pool-size=0
// The CLI runs from the build (made by `npm install` through the `prepare` script).
//
// --v8-pool-size=0 sizes V8's pool of helper threads (optimising compiles, parallel collection) to the
// machine, one fewer than its cores, where Node's default is four whatever the cores. On two cores
// the four helpers compile side by side while a backtest warms up, and the JavaScript thread gets a
// fraction of its core: with one helper the month's backtest ran 10% more candles a second (docs/
// performance-log.md, tenth round). A Node option, not a V8 flag: the build's code cache still fits.
// npm's launchers (npx, a global install, Windows' .cmd shims) keep the option; `node bin/propbot.js`
// runs the same CLI with Node's default pool.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const main = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
if (!existsSync(main)) {
  process.stderr.write('propbot: the build is missing (dist/cli/main.js); run `npm run build` first\n');
  process.exit(2);
}
const { runCli } = await import(main);
process.exitCode = await runCli(process.argv.slice(2));
