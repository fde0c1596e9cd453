import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { CandleRow, Diagnostic } from '../../src/feed/files/index.js';

export function tempDir(): { dir: string; write(name: string, text: string): string; cleanup(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), 'propbot-files-'));
  return {
    dir,
    write(name, text) {
      const file = path.join(dir, name);
      writeFileSync(file, text);
      return file;
    },
    cleanup() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function collect(rows: AsyncIterable<CandleRow>): Promise<CandleRow[]> {
  const out: CandleRow[] = [];
  for await (const r of rows) out.push(r);
  return out;
}

export function diagnostics(): { list: Diagnostic[]; onDiagnostic: (d: Diagnostic) => void } {
  const list: Diagnostic[] = [];
  return { list, onDiagnostic: (d) => list.push(d) };
}
