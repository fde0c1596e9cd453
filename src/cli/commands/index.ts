import type { Command } from 'commander';
import { registerBacktest } from './backtest.js';
import { registerNew } from './new.js';
import { registerRun } from './run.js';
import { registerSandbox } from './sandbox.js';
import { registerStrategies } from './strategies.js';
import { registerSweep } from './sweep.js';
import { registerWalkForward } from './walkforward.js';
import { registerWorker } from './worker.js';

/** Every subcommand registers itself on the program; add new ones here. */
export const COMMANDS: Array<(program: Command) => void> = [
  registerRun,
  registerBacktest,
  registerSandbox,
  registerSweep,
  registerStrategies,
  registerNew,
  registerWalkForward,
  registerWorker,
];
