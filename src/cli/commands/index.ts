import type { Command } from 'commander';

/** Every subcommand registers itself on the program; add new ones here. */
export const COMMANDS: Array<(program: Command) => void> = [];
