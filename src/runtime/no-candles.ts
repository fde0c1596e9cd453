/**
 * A data file with no candle inside the range a run asks for. The error says where the file's candles
 * are, so the range (or the file) can be fixed without opening it.
 */
import { ConfigError } from '../core/errors.js';
import { isoMinute } from './run-range.js';

/** The config keys (or flags) a message names; default: the command line's. */
export interface RangeKeys {
  readonly from: string;
  readonly to: string;
  /** The market's key, e.g. `markets.BTC`, `paper.markets.0.file`. */
  readonly market: string;
}

/** The command line's names, for a run from flags or a scenario. */
export const flagRangeKeys = (asset: string): RangeKeys => ({ from: '--from', to: '--to', market: `markets.${asset}` });


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
    return new ConfigError(keys.from, `${isoMinute(from)} is after the last candle of ${file} (${isoMinute(lastTime)}; its first: ${isoMinute(firstTime)})`, where);
  }
  if (to !== undefined && to <= firstTime) {
    return new ConfigError(keys.to, `${isoMinute(to)} is not after the first candle of ${file} (${isoMinute(firstTime)})`, where);
  }
  const range = `${from !== undefined ? isoMinute(from) : 'the start'} to ${to !== undefined ? isoMinute(to) : 'the end'}`;
  return new ConfigError(keys.market, `no candles in ${file} from ${range} (a gap in its data)`, where);
}
