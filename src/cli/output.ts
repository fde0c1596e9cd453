/**
 * What the CLI prints, and how a command that fails says so. Every byte written to stdout and stderr
 * while the CLI runs goes through the logger's redaction (`redactText`): a plugin's error, a progress
 * bar or a summary that happens to contain the API key prints `[redacted]` instead. A failure is one
 * line: `propbot: <what went wrong, where>`, never a stack (PROPBOT_DEBUG=1 adds it, for maintainers).
 */
import { locateConfigError } from '../core/config-file.js';
import { ConfigError, PropbotError } from '../core/errors.js';
import { redactText } from '../core/logger.js';

type Write = NodeJS.WriteStream['write'];

/** Route stdout and stderr through `redactText` until the returned function is called. */
export function redactProcessOutput(): () => void {
  const undo = [process.stdout, process.stderr].map((stream) => {
    const original = stream.write;
    stream.write = function (this: NodeJS.WriteStream, chunk: unknown, ...rest: unknown[]) {
      let out = chunk;
      if (typeof chunk === 'string') out = redactText(chunk);
      else if (chunk instanceof Uint8Array) {
        const text = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('utf8');
        const clean = redactText(text);
        if (clean !== text) out = clean;
      }
      return (original as (...args: unknown[]) => boolean).call(this, out, ...rest);
    } as Write;
    return () => {
      stream.write = original;
    };
  });
  return () => undo.forEach((f) => f());
}

/**
 * The one line a failed command prints, and its exit code: 2 for what the user can fix (a PropbotError:
 * config, arguments, the venue's refusal), 1 for anything else. Line breaks inside a message are folded
 * so the line stays one line.
 */
export function failureLine(err: unknown): { line: string; exitCode: number } {
  const fold = (text: string) => text.replace(/\s*\n\s*/g, ' | ').trim();
  if (err instanceof ConfigError && err.file !== undefined) err = locateConfigError(err, err.file);
  if (err instanceof PropbotError) return { line: `propbot: ${fold(err.message)}`, exitCode: 2 };
  const what = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return { line: `propbot: unexpected error: ${fold(what)} (PROPBOT_DEBUG=1 prints the stack)`, exitCode: 1 };
}

/** Print the failure line for `err` on stderr (and the stack under PROPBOT_DEBUG); returns the exit code. */
export function reportFailure(err: unknown): number {
  const { line, exitCode } = failureLine(err);
  process.stderr.write(`${redactText(line)}\n`);
  if (process.env['PROPBOT_DEBUG'] && err instanceof Error && err.stack) process.stderr.write(`${redactText(err.stack)}\n`);
  return exitCode;
}
