import { PropbotError } from '../../core/errors.js';

/**
 * A candle or snapshot file that can not be read as a whole: unknown layout, wrong header, no data,
 * too many bad rows, unreadable bytes. Single bad rows are not errors: they are skipped and reported
 * as diagnostics. `line` is 1-based; 0 when the problem is not tied to a line (e.g. an empty file).
 */
export class DataFileError extends PropbotError {
  readonly file: string;
  readonly line: number;
  readonly expected: string;
  constructor(file: string, line: number, expected: string, got: string, options?: { cause?: unknown }) {
    const at = line > 0 ? `${file}:${line}` : file;
    super('data_file_invalid', `${at}: expected ${expected}, got ${got}`, options);
    this.file = file;
    this.line = line;
    this.expected = expected;
  }
}
