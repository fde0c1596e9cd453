import { describe, expect, it } from 'vitest';
import { closestName, editDistance } from '../../src/core/suggest.js';

describe('closestName: the nearest name to a typo', () => {
  it('counts an insertion, a deletion, a replacement and a swap of neighbours as one edit each', () => {
    expect(editDistance('sma-cross', 'sma-crosss')).toBe(1);
    expect(editDistance('sma-cross', 'sma-cros')).toBe(1);
    expect(editDistance('sma-cross', 'sma-croxs')).toBe(1);
    expect(editDistance('sma-cross', 'sam-cross')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });

  it('answers the closest within the limit, case aside, and nothing when none is near', () => {
    const shipped = ['challenge-aware', 'donchian-breakout', 'mean-reversion', 'sma-cross'];
    expect(closestName('SMA-Cros', shipped)).toBe('sma-cross');
    expect(closestName('mean-reverson', shipped)).toBe('mean-reversion');
    expect(closestName('rsi-bounce', shipped)).toBeUndefined();
    expect(closestName('smacros', shipped, 1)).toBeUndefined();
    expect(closestName('smacros', shipped)).toBe('sma-cross');
  });

  it('takes a singular for its plural when only one name begins with it', () => {
    expect(closestName('strategy', ['mode', 'paper', 'strategies', 'risk'])).toBe('strategies');
    expect(closestName('strategy', ['strategies', 'strategist'])).toBeUndefined();
    expect(closestName('risks', ['risk-limits', 'mode'], 1)).toBeUndefined(); // under six letters: edits only
  });
});
