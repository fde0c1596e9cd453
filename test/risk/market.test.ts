import { describe, expect, it } from 'vitest';
import { SCHEDULE_NONE_AHEAD } from '../../src/api/types.js';
import { accountStatusRule } from '../../src/risk/index.js';
import {
  account,
  cancelIntent,
  closeAllIntent,
  closeIntent,
  market,
  marketSnap,
  only,
  openIntent,
  protectIntent,
  setup,
  T0,
} from './builders.js';

const kinds = () => ({
  open: openIntent(),
  close: closeIntent(),
  protect: protectIntent(),
  cancel: cancelIntent(),
  close_all: closeAllIntent(),
});

describe('market status rule', () => {
  it('a paused market passes nothing on it but flattening', () => {
    const { guard } = setup({ config: only('marketStatus'), market: market({ settings: { isPaused: true } }) });
    const k = kinds();
    for (const i of [k.open, k.close, k.protect, k.cancel]) expect(guard.check(i)).toMatchObject({ code: 'market_paused' });
    expect(guard.check(k.close_all).verdict).toBe('approved');
    // a pause flag says nothing about when it ends
    expect(guard.check(openIntent())).not.toHaveProperty('retryAt');
  });

  it('a market in a scheduled break counts as paused, with retryAt at the unpause', () => {
    const schedule = { nextPauseAt: T0 - 1000, nextUnpauseAt: T0 + 3_600_000, closestPauseAt: 0, closestUnpauseAt: 0, pausedAt: T0 - 1000, inPause: true };
    const { guard } = setup({ config: only('marketStatus'), market: market({ schedule }) });
    expect(guard.check(openIntent())).toMatchObject({ code: 'market_paused', retryAt: T0 + 3_600_000 });
  });

  it('a closed market passes nothing on it', () => {
    const { guard } = setup({ config: only('marketStatus'), market: market({ settings: { isClosed: true } }) });
    const k = kinds();
    for (const i of [k.open, k.close, k.protect, k.cancel]) expect(guard.check(i)).toMatchObject({ code: 'market_closed' });
  });

  it('a close-only market passes only closes', () => {
    const { guard } = setup({ config: only('marketStatus'), market: market({ settings: { isCloseOnly: true } }) });
    const k = kinds();
    expect(guard.check(k.close).verdict).toBe('approved');
    expect(guard.check(k.close_all).verdict).toBe('approved');
    for (const i of [k.open, k.protect, k.cancel]) expect(guard.check(i)).toMatchObject({ code: 'market_close_only' });
  });

  it('denies opens within pauseLeadMs of the next scheduled pause: 1 ms outside passes', () => {
    const lead = 300_000;
    const at = (nextPauseAt: number) =>
      setup({
        config: only('marketStatus'),
        market: market({
          schedule: { nextPauseAt, nextUnpauseAt: nextPauseAt + 3_600_000, closestPauseAt: 0, closestUnpauseAt: 0, pausedAt: 0, inPause: false },
        }),
      }).guard;
    expect(at(T0 + lead + 1).check(openIntent()).verdict).toBe('approved');
    expect(at(T0 + lead).check(openIntent())).toMatchObject({ code: 'market_pause_soon', retryAt: T0 + lead + 3_600_000 });
    // closes still pass before a pause
    expect(at(T0 + lead).check(closeIntent()).verdict).toBe('approved');
    // 0 (no breaks) and the sentinel (none ahead) mean no pause
    expect(at(0).check(openIntent()).verdict).toBe('approved');
    expect(at(SCHEDULE_NONE_AHEAD).check(openIntent()).verdict).toBe('approved');
  });

  it('a break the clock has reached before any snapshot shows it denies opens as paused, until its scheduled end', () => {
    // Taken 5 s before the break began (inPause still false); the guard's clock is 1 s into it.
    const at = (nextUnpauseAt: number) => {
      const { guard, clock } = setup({ config: only('marketStatus'), market: null });
      const schedule = { nextPauseAt: T0 - 1_000, nextUnpauseAt, closestPauseAt: 0, closestUnpauseAt: 0, pausedAt: 0, inPause: false };
      guard.observeMarket(marketSnap(market({ schedule }), T0 - 6_000));
      return { guard, clock };
    };
    const { guard, clock } = at(T0 + 3_600_000);
    const denied = guard.check(openIntent());
    expect(denied).toMatchObject({ code: 'market_paused', retryAt: T0 + 3_600_000 });
    expect(denied).toMatchObject({ reason: expect.stringMatching(/scheduled break since .*: the latest snapshot \(taken at .*\) predates it/) });
    // Reducing intents are the venue's to refuse, as before a break.
    expect(guard.check(closeIntent()).verdict).toBe('approved');
    // A break whose end the snapshot does not give (none ahead of its start) holds opens too, without a retry time.
    expect(at(T0 - 2_000).guard.check(openIntent())).toMatchObject({ code: 'market_paused' });
    expect(at(T0 - 2_000).guard.check(openIntent())).not.toHaveProperty('retryAt');
    // Past the scheduled end the break no longer holds (the stale rule still watches the snapshot's age).
    clock.set(T0 + 3_600_000);
    expect(guard.check(openIntent())).not.toMatchObject({ code: 'market_paused' });
  });

  it('denies opens on a stale snapshot and on a market never seen', () => {
    const { guard } = setup({ config: only('marketStatus') });
    guard.observeMarket(marketSnap(market(), T0, true));
    expect(guard.check(openIntent())).toMatchObject({ code: 'market_data_stale' });
    expect(guard.check(openIntent({ asset: 'ETH' }))).toMatchObject({ code: 'market_unknown' });
    expect(guard.check(closeIntent({ asset: 'ETH' })).verdict).toBe('approved');
  });
});

describe('account status rule', () => {
  it('active trades; a managed-capital lock passes only reducing intents', () => {
    const { guard } = setup({ config: only('accountStatus'), account: account({ status: 'trading_locked_by_funded_limit' }) });
    const k = kinds();
    expect(guard.check(k.open)).toMatchObject({ verdict: 'denied' });
    for (const i of [k.close, k.protect, k.cancel, k.close_all]) expect(guard.check(i).verdict).toBe('approved');
    guard.observeAccount(account({ status: 'active' }));
    expect(guard.check(openIntent()).verdict).toBe('approved');
  });

  it('the lock is denied by its own code when the state rule is not the first to see it', () => {
    const { guard } = setup({ config: only('accountStatus'), account: account({ status: 'trading_locked_by_instant_funded_limit' }) });
    const i = openIntent();
    expect(accountStatusRule(i, guard.context(i))).toMatchObject({ code: 'account_locked' });
  });

  it('a status that stops trading denies everything', () => {
    const { guard } = setup({ config: only('accountStatus'), account: account({ status: 'failed' }) });
    const k = kinds();
    expect(guard.check(k.open).verdict).toBe('denied');
    expect(guard.check(k.close).verdict).toBe('denied');
    for (const i of [k.open, k.close, k.protect, k.cancel, k.close_all]) {
      expect(accountStatusRule(i, guard.context(i))).toMatchObject({ code: 'account_not_trading' });
    }
  });

  it('requireAccountRecord holds opens until an Account record arrives', () => {
    const { guard } = setup({ config: { ...only('accountStatus'), accountStatus: { enabled: true, requireAccountRecord: true } } });
    expect(guard.check(openIntent())).toMatchObject({ code: 'account_unknown' });
    guard.observeAccount(account());
    expect(guard.check(openIntent()).verdict).toBe('approved');
  });
});
