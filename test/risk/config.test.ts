import { describe, expect, it } from 'vitest';
import { Decimal } from 'decimal.js';
import { parse as parseYaml } from 'yaml';
import { ConfigError } from '../../src/core/errors.js';
import { z } from 'zod';
import { DEFAULT_RISK_GUARD_CONFIG, DrawdownLimitsSchema, parseRiskGuardConfig, RiskGuard, RiskGuardConfigSchema } from '../../src/risk/index.js';

describe('risk guard configuration', () => {
  it('has the ENGINE-MODEL presets and every rule on by default', () => {
    const c = DEFAULT_RISK_GUARD_CONFIG;
    expect(c.drawdown.phases['active_evaluation']!.daily!.toString()).toBe('0.05');
    expect(c.drawdown.phases['funded']!.total!.toString()).toBe('0.1');
    expect(c.drawdown.maxAdverseMove.toString()).toBe('0.05');
    expect(c.profitWindow.windowMs).toBe(60_000);
    expect(c.scalping.windowMs).toBe(3_600_000);
    expect(new RiskGuard().rules).toEqual([
      'guard_state', 'account_status', 'market_status', 'leverage', 'notional_cap', 'free_balance',
      'scalping_window', 'trades_per_day', 'open_positions', 'loss_streak', 'consistency', 'drawdown', 'profit_window',
    ]);
  });

  it('writes out exactly what the schema gives for an empty configuration', () => {
    const parsed = RiskGuardConfigSchema.parse({});
    expect(DEFAULT_RISK_GUARD_CONFIG).toStrictEqual(parsed);
    // Key order too: the backtest lists the rules it turns off in this order.
    expect(JSON.stringify(DEFAULT_RISK_GUARD_CONFIG)).toBe(JSON.stringify(parsed));
    expect(DEFAULT_RISK_GUARD_CONFIG.drawdown.phases['funded']!.daily).toBeInstanceOf(Decimal);
  });

  it('exports schemas that embed, parse and unwrap to the object schema', () => {
    const embedded = z.strictObject({ risk: RiskGuardConfigSchema.optional() });
    expect(embedded.parse({ risk: { tradesPerDay: { max: 3 } } }).risk!.tradesPerDay.max).toBe(3);
    expect(Object.keys(RiskGuardConfigSchema.unwrap().shape)).toEqual(Object.keys(DEFAULT_RISK_GUARD_CONFIG));
    expect(DrawdownLimitsSchema.unwrap().partial().parse({ daily: '0.03' }).daily!.toString()).toBe('0.03');
  });

  it('reads a YAML block with numbers or strings, and leaves out disabled rules', () => {
    const yaml = `
drawdown:
  maxAdverseMove: 0.03
  buffer: "0.01"
profitWindow:
  enabled: false
strategies:
  scalper: { allowScalping: true }
`;
    const c = parseRiskGuardConfig(parseYaml(yaml));
    expect(c.drawdown.maxAdverseMove.toString()).toBe('0.03');
    expect(c.drawdown.buffer.toString()).toBe('0.01');
    expect(c.strategies['scalper']!.allowScalping).toBe(true);
    expect(new RiskGuard({ config: parseYaml(yaml) }).rules).not.toContain('profit_window');
    // a parsed configuration parses again unchanged (the daemon may hand either)
    expect(parseRiskGuardConfig(c).drawdown.maxAdverseMove.toString()).toBe('0.03');
  });

  it('names the key and what was expected on a bad value', () => {
    const bad = () => parseRiskGuardConfig({ drawdown: { maxAdverseMove: '5%' } });
    expect(bad).toThrow(ConfigError);
    expect(bad).toThrow(/risk\.drawdown\.maxAdverseMove: expected a decimal/);
    expect(() => parseRiskGuardConfig({ killSwitch: { share: 2 } })).toThrow(/risk\.killSwitch\.share: expected a fraction between 0 and 1/);
    expect(() => new RiskGuard({ config: { tradesPerDay: { max: -1 } } })).toThrow(/risk\.tradesPerDay\.max/);
    expect(() => parseRiskGuardConfig({ accounts: { a: { type: 'gold' } } }, 'daemon.risk')).toThrow(/daemon\.risk\.accounts\.a\.type/);
  });

  it('exports the schema for embedding', () => {
    expect(RiskGuardConfigSchema.safeParse({ leverage: { minLeverage: 0 } }).success).toBe(false);
  });
});
