/** The report's `strategy` field: each plugin once with its version, and the names it ran under when they are not its own. */
import { describe, expect, it } from 'vitest';
import { strategiesLabel } from '../../src/runtime/backtest.js';

const s = (name: string, strategy = name, version = '1.0.0') => ({ name, strategy, version });

describe('strategiesLabel', () => {
  it('is the plugin and its version for one strategy under its own name', () => {
    expect(strategiesLabel([s('sma-cross')])).toBe('sma-cross@1.0.0');
  });

  it('names the instances of one plugin given their own names, once per plugin', () => {
    expect(strategiesLabel([s('btc', 'sma-cross'), s('eth', 'sma-cross')])).toBe('sma-cross@1.0.0 (btc, eth)');
    expect(strategiesLabel([s('sma-cross.w1', 'sma-cross'), s('sma-cross.w2', 'sma-cross'), s('breakout', 'donchian-breakout', '2.0.0')])).toBe(
      'sma-cross@1.0.0 (sma-cross.w1, sma-cross.w2), donchian-breakout@2.0.0 (breakout)',
    );
    // The same plugin at two versions is two plugins.
    expect(strategiesLabel([s('a', 'x', '1.0.0'), s('x', 'x', '1.1.0')])).toBe('x@1.0.0 (a), x@1.1.0');
  });
});
