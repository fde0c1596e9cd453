/**
 * A daemon run in the test's own process (the `Daemon` class, not `propbot run` as a child): for tests
 * that read its store afterwards and need no signals, console or status server.
 */
import { Daemon } from '../../src/runtime/daemon.js';
import { parseRunConfig } from '../../src/runtime/run-config.js';

/**
 * Runs `config` (a run config's YAML without `store`, `status` and `log`, which this adds: the store at
 * `db`, no status server, no log) with `dir` as its folder. Resolves to the run's exit code.
 */
export function runHere(config: string, dir: string, db: string): Promise<number> {
  const yaml = `${config.trimEnd()}\nstore: { file: ${db} }\nstatus: { enabled: false }\nlog: { level: silent }\n`;
  return new Daemon(parseRunConfig(yaml, dir, 'run.yaml'), { handleSignals: false }).run();
}
