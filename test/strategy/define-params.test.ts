import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { EMPTY } from 'rxjs';
import { ConfigError } from '../../src/core/errors.js';
import { defineStrategy, isStrategy, resolveAssets, STRATEGY_API_VERSION } from '../../src/strategy/define.js';
import { parseParams, zDecimal } from '../../src/strategy/params.js';

const schema = z.object({
  asset: z.string().default('BTC'),
  fast: z.number().int().min(2).default(10),
  risk: zDecimal({ positive: true, max: '0.1' }).prefault('0.01'),
});

describe('defineStrategy', () => {
  it('brands a valid definition and fills defaults', () => {
    const s = defineStrategy({ name: 'x', version: '1.2.3', params: schema, assets: (p) => [p.asset], setup: () => EMPTY });
    expect(isStrategy(s)).toBe(true);
    expect(s.apiVersion).toBe(STRATEGY_API_VERSION);
    expect(isStrategy({ ...s })).toBe(true); // brand survives a spread (Symbol.for key)
    expect(isStrategy({ name: 'x', setup() {} })).toBe(false);
    const noParams = defineStrategy({ name: 'y', version: '0.1.0', assets: ['ETH'], setup: () => EMPTY });
    expect(parseParams('y', noParams.params, undefined)).toEqual({});
    expect(resolveAssets(s, parseParams('x', s.params, { asset: 'ETH' }))).toEqual(['ETH']);
  });

  it('refuses a malformed definition, saying which field', () => {
    const ok = { name: 'x', version: '1.0.0', assets: ['BTC'], setup: () => EMPTY };
    expect(() => defineStrategy({ ...ok, name: 'has space' })).toThrow(/\.name: expected 1-64 letters/);
    expect(() => defineStrategy({ ...ok, version: 'v1' })).toThrow(/\.version: expected a semver version/);
    expect(() => defineStrategy({ ...ok, params: { fast: 1 } as never })).toThrow(/\.params: expected a zod object schema/);
    expect(() => defineStrategy({ ...ok, assets: [''] })).toThrow(/\.assets:/);
    expect(() => defineStrategy({ ...ok, setup: undefined as never })).toThrow(/\.setup: expected a function/);
    const s = defineStrategy({ ...ok, assets: () => [] });
    expect(() => resolveAssets(s, {})).toThrow(/strategy "x"\.assets: expected a non-empty list/);
  });
});

describe('parseParams', () => {
  it('fills defaults and turns decimals into Decimals', () => {
    const p = parseParams('sma', schema, { fast: 5, risk: 0.02 });
    expect(p.asset).toBe('BTC');
    expect(p.fast).toBe(5);
    expect(p.risk.toString()).toBe('0.02');
    expect(parseParams('sma', schema, {}).risk.toString()).toBe('0.01');
  });

  it('names the plugin and the parameter in a ConfigError', () => {
    const err = (() => {
      try {
        parseParams('sma-cross', schema, { fast: 'ten' }, { file: 'config/x.yaml', path: 'strategies.0.params' });
      } catch (e) {
        return e as ConfigError;
      }
    })();
    expect(err).toBeInstanceOf(ConfigError);
    expect(err!.path).toBe('strategies.0.params.fast');
    expect(err!.message).toMatch(/config\/x\.yaml: strategies\.0\.params\.fast: strategy "sma-cross": parameter "fast": .*expected number/);
    expect(() => parseParams('sma-cross', schema, { risk: '0.5' })).toThrow(/parameter "risk": expected at most 0\.1, got 0\.5/);
    expect(() => parseParams('sma-cross', schema, { risk: 'abc' })).toThrow(/parameter "risk": expected a decimal number/);
    expect(() => parseParams('sma-cross', schema, { fsat: 3 })).toThrow(/parameter "fsat": unknown parameter "fsat"; known: asset, fast, risk; did you mean "fast"\?$/);
    expect(() => parseParams('sma-cross', schema, { volume: 3 })).toThrow(/unknown parameter "volume"; known: asset, fast, risk/);
    expect(() => parseParams('sma-cross', schema, [1])).toThrow(/params: strategy "sma-cross": parameters must be an object/);
  });
});
