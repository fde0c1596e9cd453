#!/usr/bin/env -S node --v8-pool-size=0
// The CLI runs from the build (made by `npm install` through the `prepare` script).
//
// --v8-pool-size=0 sizes V8's pool of helper threads (optimising compiles, parallel collection) to the
// machine, one fewer than its cores, where Node's default is four whatever the cores. On two cores a
// backtest's warm-up waits for optimised code, and four compiles side by side on the one free core
// each finish late (and take from the JavaScript thread's core); one helper finishes them one at a
// time: the month's backtest ran 10% more candles a second (docs/performance-log.md, tenth round).
// A Node option, not a V8 flag: the build's code cache still fits.
// npm's launchers (npx, a global install, Windows' .cmd shims) keep the option; `node bin/propbot.js`
// runs the same CLI with Node's default pool. BusyBox's env (Alpine) has no -S: the README says what to
// run there instead.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const main = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
if (!existsSync(main)) {
  process.stderr.write('propbot: the build is missing (dist/cli/main.js); run `npm run build` first\n');
  process.exit(2);
}
const { runCli } = await import(main);
process.exitCode = await runCli(process.argv.slice(2));
