/**
 * The README's Commands block against the CLI itself: every command it shows exists, and every flag it
 * gives a command is one that command takes (a renamed or removed flag fails here, not for a reader).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/main.js';
import { REPO } from '../backtest/helpers.js';

/** The README's ```sh block under "## Commands", one entry per command (continuation lines joined). */
function readmeCommands(): Array<{ words: string[]; text: string }> {
  const readme = readFileSync(path.join(REPO, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Commands'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)![1]!;
  const entries: Array<{ words: string[]; text: string }> = [];
  for (const line of block.split('\n')) {
    const code = line.replace(/\s+#.*$/, '');
    if (code.startsWith('propbot ')) entries.push({ words: code.split(/\s+/).slice(1), text: code });
    else if (code.trim() !== '' && entries.length > 0) entries[entries.length - 1]!.text += ` ${code.trim()}`;
  }
  return entries;
}

/** The command the words name (`new strategy` is a command of `new`). */
function commandOf(program: Command, words: readonly string[]): Command | undefined {
  let at: Command | undefined = program;
  for (const word of words) {
    const next: Command | undefined = at.commands.find((c) => c.name() === word);
    if (next === undefined) return at === program ? undefined : at;
    at = next;
  }
  return at;
}

describe('README: Commands', () => {
  it('shows every command the CLI has, each with flags it takes', () => {
    const program = buildProgram();
    const entries = readmeCommands();
    expect(entries.map((e) => e.words[0])).toEqual(expect.arrayContaining(program.commands.filter((c) => c.name() !== 'help').map((c) => c.name())));
    const search = commandOf(program, ['sweep'])!;
    for (const { words, text } of entries) {
      const command = commandOf(program, words);
      expect(command, text).toBeDefined();
      const takes = new Set(command!.options.map((o) => o.long));
      // walkforward's line says "every search option of sweep": those are checked against sweep's.
      const extra = text.includes('every search option of sweep') ? new Set(search.options.map((o) => o.long)) : new Set<string | undefined>();
      const flags = [...text.matchAll(/(?<![\w-])--[a-z][a-z-]*/g)].map((m) => m[0]);
      expect(flags.length, text).toBeGreaterThan(0);
      for (const flag of flags) expect(takes.has(flag) || extra.has(flag), `${command!.name()} ${flag}`).toBe(true);
    }
  });
});
