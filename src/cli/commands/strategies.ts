import type { Command } from 'commander';

/** `propbot strategies`: the shipped examples and the plugins of a folder, with their parameters. */
export function registerStrategies(program: Command): void {
  program
    .command('strategies')
    .description('list the shipped example strategies and the plugins in a folder: name, version, description, parameters and defaults')
    .option('--dir <dir>', 'also list the plugins (.ts, .mts, .js, .mjs) in this folder')
    .option('--json', 'print the list as JSON')
    .action(async (opts: { dir?: string; json?: boolean }) => {
      const { formatListing, listStrategies } = await import('../list-strategies.js');
      const listing = await listStrategies(opts.dir);
      process.stdout.write(opts.json ? `${JSON.stringify(listing, null, 2)}\n` : formatListing(listing));
    });
}
