/**
 * A run's range, `from` to `to`, as a scenario, the command line or a paper run's config gives it:
 * its two ends checked against each other, and the form its times take in messages.
 */
import { configKeyLine } from '../core/config-file.js';
import { ConfigError } from '../core/errors.js';

/** A time as the messages about a run's range write it: `2019-05-10T00:00Z`. */
export const isoMinute = (ms: number): string => new Date(ms).toISOString().replace(':00.000Z', 'Z');

/** One end of a run's range and what gave it: a flag (`--from`), or a key of a file. */
export interface RangeEnd {
  readonly ms: number;
  readonly key: string;
  readonly file?: string;
}

/**
 * `from` must come before `to`. Checked once flags have overridden the file, so a range the flags
 * mend is not refused for the file's; the message names where each end came from.
 */
export function checkRange(from: RangeEnd | undefined, to: RangeEnd | undefined): void {
  if (from === undefined || to === undefined || from.ms < to.ms) return;
  const lineOf = (end: RangeEnd) => (end.file !== undefined ? configKeyLine(end.file, end.key.split('.')) : undefined);
  const fromLine = lineOf(from);
  const toLine = lineOf(to);
  // Where `from` is, unless it is the same file the error's own place already names.
  const fromPlace = [from.file !== to.file ? from.file : undefined, fromLine !== undefined ? `line ${fromLine}` : undefined].filter(Boolean).join(':');
  throw new ConfigError(to.key, `${isoMinute(to.ms)} must be after ${from.key} (${isoMinute(from.ms)}${fromPlace ? `, ${fromPlace}` : ''})`, {
    ...(to.file !== undefined ? { file: to.file } : {}),
    ...(toLine !== undefined ? { line: toLine } : {}),
  });
}
