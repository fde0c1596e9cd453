/**
 * A streaming reader of freqtrade's candle JSON: one array of rows `[ms, open, high, low, close,
 * volume]`, usually all on a single line. `JSON.parse` would need the whole file (and turn prices
 * into floats); this scanner walks the bytes, keeps only the row being read, and hands each row's
 * number tokens over as text.
 */
import { createReadStream } from 'node:fs';
import { DataFileError } from './errors.js';
import { candleFromFields, fault, readAnyEpoch, type RowParse } from './layouts.js';

export interface JsonRow {
  readonly line: number;
  readonly text: string;
  readonly parsed: RowParse;
}

const MAX_ROW_CHARS = 4096;

function parseRow(body: string): RowParse {
  const tokens = body.split(',').map((t) => t.trim());
  if (tokens.length < 6) return fault('columns', `expected 6 values [ms, open, high, low, close, volume], got ${tokens.length}`);
  for (const t of tokens.slice(0, 6)) {
    if (!/^-?[0-9.eE+-]+$/.test(t)) return fault('json', `expected numbers, got ${JSON.stringify(t.slice(0, 40))}`);
  }
  // freqtrade writes the date as an integer, but pandas may write 1.6e12 style floats
  const time = /^[0-9]+$/.test(tokens[0]!) ? tokens[0]! : normaliseIntToken(tokens[0]!);
  return candleFromFields(time, readAnyEpoch, tokens[1]!, tokens[2]!, tokens[3]!, tokens[4]!, tokens[5]);
}

function normaliseIntToken(token: string): string {
  const m = /^([0-9]+)(?:\.([0-9]*))?[eE]\+?([0-9]+)$/.exec(token);
  if (!m) return token;
  const digits = m[1]! + (m[2] ?? '');
  const exp = Number(m[3]) - (m[2]?.length ?? 0);
  if (exp < 0) return token;
  return digits + '0'.repeat(exp);
}

export async function* readFreqtradeJson(file: string): AsyncGenerator<JsonRow> {
  let line = 1;
  let depth = 0;
  let closed = false;
  let row = '';
  let rowLine = 0;
  const stream = createReadStream(file, { encoding: 'utf8', highWaterMark: 64 * 1024 });
  try {
    for await (const chunk of stream as AsyncIterable<string>) {
      for (let i = 0; i < chunk.length; i++) {
        const ch = chunk[i]!;
        if (ch === '\n') line += 1;
        if (closed) {
          if (ch.trim() !== '' && ch !== '\ufeff') {
            throw new DataFileError(file, line, 'nothing after the closing `]` of the JSON array', JSON.stringify(ch));
          }
          continue;
        }
        if (depth === 0) {
          if (ch === '[') depth = 1;
          else if (ch.trim() !== '' && ch !== '\ufeff') throw new DataFileError(file, line, 'a JSON array `[`', JSON.stringify(ch));
          continue;
        }
        if (depth === 1) {
          if (ch === '[') {
            depth = 2;
            row = '';
            rowLine = line;
          } else if (ch === ']') {
            depth = 0;
            closed = true;
          } else if (ch !== ',' && ch.trim() !== '') {
            throw new DataFileError(file, line, 'rows as arrays `[ms, open, high, low, close, volume]`', JSON.stringify(chunk.slice(i, i + 20)));
          }
          continue;
        }
        // depth 2: inside a row
        if (ch === ']') {
          depth = 1;
          const text = `[${row}]`;
          yield { line: rowLine, text, parsed: parseRow(row) };
          continue;
        }
        if (ch === '[' || ch === '{') {
          throw new DataFileError(file, line, 'flat rows of numbers', 'a nested array or object');
        }
        row += ch;
        if (row.length > MAX_ROW_CHARS) throw new DataFileError(file, rowLine, `rows shorter than ${MAX_ROW_CHARS} characters`, 'a longer one');
      }
    }
  } finally {
    stream.destroy();
  }
  if (!closed) throw new DataFileError(file, line, 'the closing `]` of the JSON array', 'the end of the file');
}
