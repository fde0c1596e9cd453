import type { Command } from 'commander';

/** `propbot new strategy NAME`: a commented starting file (and, in a new folder, package.json and tsconfig.json). */
export function registerNew(program: Command): void {
  const make = program.command('new').description('start something new from a template');
  make
    .command('strategy')
    .description('write NAME.ts, a commented strategy that type-checks, and (where missing) package.json and tsconfig.json for editor completion')
    .argument('<name>', 'strategy name, also the file name (NAME.ts)')
    .option('--dir <dir>', 'folder to write into (created if missing; default the current folder)')
    .action(async (name: string, opts: { dir?: string }) => {
      const { newStrategy } = await import('../new-strategy.js');
      const { written, kept } = await newStrategy(name, opts.dir ?? '.');
      for (const file of written) process.stdout.write(`wrote ${file}\n`);
      for (const file of kept) process.stdout.write(`kept  ${file} (exists)\n`);
    });
}
