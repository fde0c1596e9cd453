/** Rules on the intent's market: flags, schedule and freshness. */
import type { Rule } from '../context.js';

/**
 * Paused or closed: nothing on that market passes (the venue refuses creation, edits and cancels).
 * Close-only: only `close` (the venue takes only a take without trigger). Opens are also denied on a
 * stale snapshot, on a market never seen, within `pauseLeadMs` of a scheduled pause, and inside it
 * by the clock before a snapshot shows it.
 */
export const marketStatusRule: Rule = (intent, ctx) => {
  if (intent.kind === 'close_all') return undefined;
  const m = ctx.market;
  if (m === undefined) {
    if (intent.kind !== 'open') return undefined;
    return { code: 'market_unknown', reason: `no market snapshot for ${intent.asset} yet; opens wait for one` };
  }
  if (m.closed) return { code: 'market_closed', reason: `market ${intent.asset} is closed` };
  if (m.paused) {
    return {
      code: 'market_paused',
      reason: `market ${intent.asset} is paused${m.inScheduledPause ? ' (scheduled break)' : ''}`,
      // Only a scheduled break says when it ends; a pause flag alone does not.
      ...(m.inScheduledPause && m.nextUnpauseAt !== null ? { retryAt: m.nextUnpauseAt } : {}),
    };
  }
  if (m.closeOnly && intent.kind !== 'close') {
    return { code: 'market_close_only', reason: `market ${intent.asset} is close-only; ${intent.kind} refused` };
  }
  if (intent.kind !== 'open') return undefined;
  const cfg = ctx.config.marketStatus;
  if (cfg.denyStale && m.stale) {
    return {
      code: 'market_data_stale',
      reason: `market snapshot of ${intent.asset} is stale (taken at ${new Date(m.takenAt).toISOString()})`,
    };
  }
  // The clock inside the next break while the latest snapshot predates it (a poll comes every few
  // seconds): the schedule says paused, and the venue would refuse the open. The break ends at
  // `nextUnpauseAt` when the snapshot gives one after its start; else the next snapshot says.
  if (m.nextPauseAt !== null && ctx.now >= m.nextPauseAt) {
    const end = m.nextUnpauseAt !== null && m.nextUnpauseAt > m.nextPauseAt ? m.nextUnpauseAt : null;
    if (end === null || ctx.now < end) {
      return {
        code: 'market_paused',
        reason:
          `market ${intent.asset} is in its scheduled break since ${new Date(m.nextPauseAt).toISOString()}: ` +
          `the latest snapshot (taken at ${new Date(m.takenAt).toISOString()}) predates it`,
        ...(end !== null ? { retryAt: end } : {}),
      };
    }
  }
  if (m.nextPauseAt !== null && ctx.now < m.nextPauseAt && ctx.now >= m.nextPauseAt - cfg.pauseLeadMs) {
    return {
      code: 'market_pause_soon',
      reason:
        `market ${intent.asset} pauses at ${new Date(m.nextPauseAt).toISOString()}, ` +
        `${ctx.now < m.nextPauseAt ? m.nextPauseAt - ctx.now : 0} ms from now (lead ${cfg.pauseLeadMs} ms)`,
      ...(m.nextUnpauseAt !== null ? { retryAt: m.nextUnpauseAt } : {}),
    };
  }
  return undefined;
};
