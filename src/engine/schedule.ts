/**
 * Weekly trading breaks of a market (e.g. RWA: paused Friday 21:00 UTC to Sunday 21:00 UTC) and the
 * `schedule` fields of the Market record, computed from engine time.
 */
import type { MarketSchedule } from '../api/types.js';
import { ConfigError } from '../core/errors.js';
import type { WeeklyBreak } from './presets.js';

const MIN = 60_000;
const DAY = 86_400_000;
const WEEK = 7 * DAY;
/** 1970-01-04 (a Sunday) 00:00 UTC: weeks start on Sunday. */
const SUNDAY0 = 3 * DAY;

interface Span {
  /** Offset from the week's Sunday 00:00, ms. */
  start: number;
  /** Length, ms (> 0). */
  length: number;
}

export class WeeklySchedule {
  readonly #spans: Span[];
  constructor(breaks: WeeklyBreak[], path = 'schedule') {
    this.#spans = breaks.map((b, i) => {
      const start = offset(b.startDay, b.startTime, `${path}[${i}].start`);
      const end = offset(b.endDay, b.endTime, `${path}[${i}].end`);
      const length = end > start ? end - start : end + WEEK - start;
      return { start, length };
    });
  }

  /** The `schedule` record at `t`, plus when the pause state next changes. */
  at(t: number): MarketSchedule & { nextChangeAt: number } {
    if (this.#spans.length === 0) {
      return { nextPauseAt: 0, nextUnpauseAt: 0, closestPauseAt: 0, closestUnpauseAt: 0, pausedAt: 0, inPause: false, nextChangeAt: Number.MAX_SAFE_INTEGER };
    }
    const week = Math.floor((t - SUNDAY0) / WEEK) * WEEK + SUNDAY0;
    let current: [number, number] | null = null;
    let next: [number, number] | null = null;
    for (const w of [week - WEEK, week, week + WEEK]) {
      for (const s of this.#spans) {
        const start = w + s.start;
        const end = start + s.length;
        if (start <= t && t < end) {
          if (!current || end > current[1]) current = [start, end];
        } else if (start > t && (!next || start < next[0])) next = [start, end];
      }
    }
    // `next` always exists for a weekly schedule (one occurrence a week ahead at most).
    const n = next!;
    return {
      nextPauseAt: n[0],
      nextUnpauseAt: current ? current[1] : n[1],
      closestPauseAt: current ? current[0] : n[0],
      closestUnpauseAt: current ? current[1] : n[1],
      pausedAt: current ? current[0] : 0,
      inPause: current !== null,
      nextChangeAt: current ? current[1] : n[0],
    };
  }
}

function offset(day: number, time: string, path: string): number {
  if (!Number.isInteger(day) || day < 0 || day > 6) throw new ConfigError(path, `day must be 0 (Sunday)..6, got ${day}`);
  const m = /^(\d{2}):(\d{2})$/.exec(time);
  if (!m || Number(m[1]) > 23 || Number(m[2]) > 59) throw new ConfigError(path, `time must be HH:MM, got ${JSON.stringify(time)}`);
  return day * DAY + Number(m[1]) * 3_600_000 + Number(m[2]) * MIN;
}
