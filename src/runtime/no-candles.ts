/**
 * A data file with no candle inside the range a run asks for. The error says where the file's candles
 * are, so the range (or the file) can be fixed without opening it.
 */
import { ConfigError } from '../core/errors.js';

/** The config keys (or flags) a message names; default: the command line's. */
export interface RangeKeys {
  readonly from: string;
  readonly to: string;
  /** The market's key, e.g. `markets.BTC`, `paper.markets.0.file`. */
  readonly market: string;
}

/** The command line's names, for a run from flags or a scenario. */
export const flagRangeKeys = (asset: string): RangeKeys => ({ from: '--from', to: '--to', market: `markets.${asset}` });

const iso = (ms: number) => new Date(ms).toISOString().replace(':00.000Z', 'Z');

/**
 * `seen` is what reading stopped at: the file's first candle, and its last one when the whole file
 * was read (a range after its end), or only the first (a range before its start).
 */
export function noCandlesError(
  file: string,
  seen: { readonly firstTime: number | null; readonly lastTime: number | null },
  from: number | undefined,
  to: number | undefined,
  keys: RangeKeys,
  where: { file?: string } = {},
): ConfigError {
  const { firstTime, lastTime } = seen;
  if (firstTime === null || lastTime === null) return new ConfigError(keys.market, `no candles in ${file}`, where);
  if (from !== undefined && from > lastTime) {
    return new ConfigError(keys.from, `${iso(from)} is after the last candle of ${file} (${iso(lastTime)}; its first: ${iso(firstTime)})`, where);
  }
  if (to !== undefined && to <= firstTime) {
    return new ConfigError(keys.to, `${iso(to)} is not after the first candle of ${file} (${iso(firstTime)})`, where);
  }
  const range = `${from !== undefined ? iso(from) : 'the start'} to ${to !== undefined ? iso(to) : 'the end'}`;
  return new ConfigError(keys.market, `no candles in ${file} from ${range} (a gap in its data)`, where);
}
