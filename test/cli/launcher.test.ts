/**
 * bin/propbot.js as npm's launchers start it (npx, a global install, Windows' .cmd shims): the file
 * itself, whose first line chooses Node and the options Node starts with.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { cliNodeOptions } from '../../bench/cli-node.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'bin/propbot.js');
const BUILT = existsSync(path.join(ROOT, 'dist/cli/main.js'));
const run = promisify(execFile);

/** A module Node imports before the CLI (NODE_OPTIONS --import) that prints, at exit, the options Node was started with. */
const REPORT_OPTIONS = `data:text/javascript,${encodeURIComponent('process.on("exit",()=>process.stderr.write("execArgv="+JSON.stringify(process.execArgv)+"\\n"))')}`;

describe('bin/propbot.js started as a program', () => {
  it.runIf(BUILT && process.platform !== 'win32')('runs the CLI with V8 helper threads sized to the machine (--v8-pool-size=0)', async () => {
    const env = { ...process.env, NODE_OPTIONS: `${process.env['NODE_OPTIONS'] ?? ''} --import=${REPORT_OPTIONS}`.trim() };
    const { stdout, stderr } = await run(BIN, ['--version'], { cwd: ROOT, env });
    expect(stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const reported = /^execArgv=(.*)$/m.exec(stderr);
    expect(reported, stderr).not.toBeNull();
    expect(JSON.parse(reported![1]!) as string[]).toContain('--v8-pool-size=0');
  });

  it('`npm start` starts Node with the options of the launcher\'s first line', () => {
    const options = cliNodeOptions(BIN);
    expect(options.length).toBeGreaterThan(0);
    const start = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts['start']!;
    expect(start).toBe(`node ${options.join(' ')} bin/propbot.js run --config config/paper.yaml`);
  });
});
