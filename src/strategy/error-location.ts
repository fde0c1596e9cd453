/**
 * Where in the user's code an error was thrown: the first frame of its stack in the plugin's own file,
 * else the first frame outside propbot and node_modules. TypeScript plugins are compiled with source
 * maps (tsx turns them on), so the line and column are those of the .ts file the user wrote.
 */
import { fileURLToPath } from 'node:url';

// A path starts a frame's place (after "at " or "("): inside `node:internal/…` it would match a piece.
const FRAME = /(?:^|[\s(])((?:file:\/\/)?\/[^():]+|[A-Za-z]:\\[^():]+):(\d+):(\d+)\)?\s*$/;
const PROPBOT_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** `file:line:column` of the user's frame in `error`'s stack, or null when it has none. */
export function errorLocation(error: unknown, source?: string): string | null {
  const stack = (error as { stack?: unknown } | null)?.stack;
  if (typeof stack !== 'string') return null;
  const frames: string[] = [];
  for (const line of stack.split('\n').slice(1)) {
    const m = FRAME.exec(line.trim());
    if (!m) continue;
    const file = m[1]!.startsWith('file://') ? fileURLToPath(m[1]!.replace(/\?.*$/, '')) : m[1]!;
    frames.push(`${file}:${m[2]}:${m[3]}`);
    if (source !== undefined && file === source) return `${file}:${m[2]}:${m[3]}`;
  }
  const user = frames.find((f) => !f.includes('/node_modules/') && !f.startsWith(PROPBOT_ROOT + 'dist/') && !f.startsWith(PROPBOT_ROOT + 'src/'));
  return user ?? null;
}
