/**
 * The options Node starts `propbot` with: those of bin/propbot.js's first line, which npm's launchers
 * (npx, a global install, Windows' .cmd shims) pass to Node. A bench that starts the CLI, or a child
 * standing for it, starts Node with them too, so it measures the process a user gets.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const LAUNCHER = fileURLToPath(new URL('../bin/propbot.js', import.meta.url));

/** `--v8-pool-size=0` from `#!/usr/bin/env -S node --v8-pool-size=0`: what follows `node` on that line. */
export function cliNodeOptions(launcher: string = LAUNCHER): string[] {
  const first = readFileSync(launcher, 'utf8').split('\n', 1)[0]!;
  const words = first.replace(/^#!/, '').trim().split(/\s+/);
  const node = words.findIndex((w) => w === 'node' || w.endsWith('/node'));
  if (!first.startsWith('#!') || node < 0) throw new Error(`${launcher}: expected a first line that starts Node (#!/usr/bin/env -S node …), got ${JSON.stringify(first)}`);
  return words.slice(node + 1);
}

export const CLI_NODE_OPTIONS: readonly string[] = cliNodeOptions();
