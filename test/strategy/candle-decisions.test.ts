import fc from 'fast-check';
import { concatMap, Subject, take, type Observable } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { Candle } from '../../src/feed/types.js';
import { candleDecisions } from '../../src/strategy/candle-decisions.js';
import type { CandleDecision } from '../../src/strategy/define.js';
import type { OrderIntent } from '../../src/strategy/intents.js';

/** Stand-ins: the operator only passes candles to `decide` and intents on; their shapes do not matter to it. */
const candle = (n: number): Candle => ({ openTime: n }) as unknown as Candle;
const intent = (id: string): OrderIntent => ({ id }) as unknown as OrderIntent;

/** What each candle's callback returns: nothing, one intent, or an array of `count`. */
type Answer = { kind: 'none' } | { kind: 'one' } | { kind: 'many'; count: number };

function decider(answers: readonly Answer[]): CandleDecision {
  return (c) => {
    const n = c.openTime;
    const a = answers[n % answers.length]!;
    if (a.kind === 'none') return n % 2 === 0 ? undefined : [];
    if (a.kind === 'one') return intent(`${n}`);
    return Array.from({ length: a.count }, (_, i) => intent(`${n}.${i}`));
  };
}

/**
 * Pushes `candles` into a subject piped through `op`; a subscriber that receives an intent named in
 * `reenter` pushes the candle given there at once (a reaction inside the push, as a synchronous
 * pipeline can make), and `stopAfter` ends the subscription after that many intents. Returns the
 * callback's calls and what came out, in the order they happened.
 */
function drive(
  op: (decide: CandleDecision) => (source: Observable<Candle>) => Observable<OrderIntent>,
  decide: CandleDecision,
  candles: readonly number[],
  reenter: ReadonlyMap<string, number>,
  stopAfter: number | undefined,
): string[] {
  const source = new Subject<Candle>();
  const seen: string[] = [];
  // Each callback call is seen too: a candle still waiting when the subscriber leaves gets none.
  let out = op((c) => {
    seen.push(`decide:${c.openTime}`);
    return decide(c);
  })(source);
  if (stopAfter !== undefined) out = out.pipe(take(stopAfter));
  out.subscribe({
    next: (i) => {
      seen.push(i.id);
      const more = reenter.get(i.id);
      if (more !== undefined) source.next(candle(more));
    },
    error: (e: unknown) => seen.push(`error:${String(e)}`),
    complete: () => seen.push('complete'),
  });
  for (const n of candles) source.next(candle(n));
  source.complete();
  return seen;
}

const viaConcatMap = (decide: CandleDecision) => (source: Observable<Candle>) =>
  source.pipe(concatMap((c) => [decide(c)].flat().filter((x): x is OrderIntent => x !== undefined && x !== null)));
const viaOperator = (decide: CandleDecision) => (source: Observable<Candle>) => candleDecisions(source, decide);

const answer = fc.oneof(
  fc.constant<Answer>({ kind: 'none' }),
  fc.constant<Answer>({ kind: 'one' }),
  fc.integer({ min: 0, max: 4 }).map((count): Answer => ({ kind: 'many', count })),
);

describe('candleDecisions (ctx.onCandle)', () => {
  it('emits what concatMap over the callback emits, in the same order, with candles pushed from inside an emission waiting their turn', () => {
    fc.assert(
      fc.property(
        fc.array(answer, { minLength: 1, maxLength: 6 }),
        fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 12 }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 20 }), fc.integer({ min: 0, max: 3 }), fc.integer({ min: 100, max: 120 })), { maxLength: 3 }),
        fc.option(fc.integer({ min: 1, max: 8 }), { nil: undefined }),
        (answers, candles, reentries, stopAfter) => {
          const decide = decider(answers);
          // A re-entry fires on intent `n` or `n.i` and pushes candle `m` (>= 100, so it never re-fires itself).
          const reenter = new Map<string, number>();
          for (const [n, i, m] of reentries) {
            reenter.set(`${n}`, m);
            reenter.set(`${n}.${i}`, m);
          }
          expect(drive(viaOperator, decide, candles, reenter, stopAfter)).toEqual(drive(viaConcatMap, decide, candles, reenter, stopAfter));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a candle pushed while an earlier one is still emitting gets its callback only after that one is done', () => {
    const decide = decider([{ kind: 'many', count: 3 }]);
    const seen = drive(viaOperator, decide, [1, 2], new Map([['1.0', 101]]), undefined);
    expect(seen).toEqual(['decide:1', '1.0', '1.1', '1.2', 'decide:101', '101.0', '101.1', '101.2', 'decide:2', '2.0', '2.1', '2.2', 'complete']);
  });

  it('once the subscriber has gone, a waiting candle gets no callback; a throw in the callback ends the stream with it', () => {
    const decide = decider([{ kind: 'many', count: 4 }]);
    expect(drive(viaOperator, decide, [1, 2], new Map([['1.0', 101]]), 2)).toEqual(['decide:1', '1.0', '1.1', 'complete']);
    const throwing: CandleDecision = (c) => {
      if (c.openTime === 2) throw new Error('bad candle');
      return intent(`${c.openTime}`);
    };
    expect(drive(viaOperator, throwing, [1, 2, 3], new Map(), undefined)).toEqual(['decide:1', '1', 'decide:2', 'error:Error: bad candle']);
  });
});
