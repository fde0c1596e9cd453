/** The guard's hand controls: pausing a strategy, and flattening an account on the kill switch's path. */
import { describe, expect, it } from 'vitest';
import type { GuardStateChange } from '../../src/risk/index.js';
import type { OrderIntent } from '../../src/strategy/intents.js';
import { cancelIntent, closeAllIntent, closeIntent, openIntent, protectIntent, setup } from './builders.js';

describe('guard controls', () => {
  it('denies every intent of a paused strategy, and only of that one, until resumed', () => {
    const { guard } = setup();
    expect(guard.check(openIntent()).verdict).toBe('approved');
    guard.pauseStrategy('test', 'by alice: news at 14:30');
    expect([...guard.pausedStrategies()]).toEqual([['test', 'by alice: news at 14:30']]);
    for (const intent of [openIntent(), closeIntent(), protectIntent(), cancelIntent()]) {
      const d = guard.check(intent);
      expect(d).toMatchObject({ verdict: 'denied', code: 'strategy_paused', rule: 'control' });
      expect(d.verdict === 'denied' && d.reason).toBe('strategy test is paused: by alice: news at 14:30');
    }
    expect(guard.check({ ...openIntent(), strategy: 'other' }).verdict).toBe('approved');
    expect(() => guard.pauseStrategy('risk-guard', 'x')).toThrow(/cannot be paused/);
    expect(guard.resumeStrategy('test', 'by alice')).toBe(true);
    expect(guard.resumeStrategy('test', 'by alice')).toBe(false);
    expect(guard.check(openIntent()).verdict).toBe('approved');
  });

  it('flattens by hand as the kill switch does: HALTED, then a close_all of the account on intents$, until resumed', () => {
    const { guard } = setup();
    const states: GuardStateChange[] = [];
    const intents: OrderIntent[] = [];
    guard.state$.subscribe((s) => states.push(s));
    guard.intents$.subscribe((i) => intents.push(i));
    const intent = guard.flatten(openIntent().accountId, 'by bob: leaving for the weekend');
    expect(states).toHaveLength(1);
    expect(states[0]).toMatchObject({ from: 'ACTIVE', to: 'HALTED' });
    expect(states[0]!.reason).toBe('manual: flattened by hand (by bob: leaving for the weekend)');
    expect(intents).toEqual([intent]);
    expect(intent).toMatchObject({ kind: 'close_all', scope: 'account', strategy: 'risk-guard', asset: '*' });
    // the flatten passes the guard it came from; opens do not while halted
    expect(guard.check(intent).verdict).toBe('approved');
    expect(guard.check(closeAllIntent()).verdict).toBe('approved');
    expect(guard.check(openIntent())).toMatchObject({ verdict: 'denied' });
    // it does not lift at the next check or tick; a resume does
    guard.tick();
    expect(guard.state(intent.accountId)).toBe('HALTED');
    guard.resume(intent.accountId, 'by bob');
    expect(guard.state(intent.accountId)).toBe('ACTIVE');
    expect(guard.check(openIntent()).verdict).toBe('approved');
  });
});
