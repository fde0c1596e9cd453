import { VirtualClock } from '../../src/core/clock.js';
import { Dec } from '../../src/core/decimal.js';
import { Executor, type ExecutorOptions } from '../../src/execution/executor.js';
import { seededRandom } from '../../src/execution/retry.js';
import type {
  CancelIntent,
  CloseAllIntent,
  CloseIntent,
  OpenIntent,
  ProtectIntent,
} from '../../src/strategy/intents.js';
import { FakeExchange, virtualSleep } from './fake-exchange.js';

export const START = Date.UTC(2026, 0, 5, 12, 0, 0);
let n = 0;
const base = (kind: string) => ({ id: `${kind}-${++n}`, strategy: 'test', accountId: 'acc-1', asset: 'BTC', createdAt: START });

export function openIntent(p: Partial<OpenIntent> = {}): OpenIntent {
  return {
    ...base('open'),
    kind: 'open',
    direction: 'long',
    entry: { type: 'market' },
    sizing: { kind: 'quote', amount: new Dec(100) },
    leverage: new Dec(5),
    ...p,
  };
}
export function closeIntent(p: Partial<CloseIntent> = {}): CloseIntent {
  return { ...base('close'), kind: 'close', direction: 'long', ...p };
}
export function protectIntent(p: Partial<ProtectIntent> = {}): ProtectIntent {
  return { ...base('protect'), kind: 'protect', direction: 'long', ...p };
}
export function cancelIntent(orderId: string): CancelIntent {
  return { ...base('cancel'), kind: 'cancel', orderId };
}
export function closeAllIntent(scope: CloseAllIntent['scope']): CloseAllIntent {
  return { ...base('closeall'), kind: 'close_all', scope };
}

/** A fake venue, a virtual clock and an executor over them (no rate limit unless given). */
export function setup(options: Partial<ExecutorOptions> = {}) {
  const clock = new VirtualClock(START);
  const exchange = new FakeExchange(clock);
  const executor = new Executor({
    exchange,
    clock,
    sleep: virtualSleep(clock),
    random: seededRandom(7),
    limits: { read: [{ limit: 1000, windowMs: 1000 }], write: [{ limit: 1000, windowMs: 1000 }] },
    ...options,
  });
  return { clock, exchange, executor };
}

/** Largest number of calls inside any window of `windowMs` (a call at t counts in (t - windowMs, t]). */
export function maxInWindow(times: number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  let lo = 0;
  for (let hi = 0; hi < sorted.length; hi += 1) {
    while (sorted[lo]! <= sorted[hi]! - windowMs) lo += 1;
    best = Math.max(best, hi - lo + 1);
  }
  return best;
}
