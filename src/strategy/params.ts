/**
 * Strategy parameters: zod schemas, validated once when a strategy is loaded. A bad value is a
 * `ConfigError` naming the strategy and the parameter's path, and a key the schema does not know is
 * refused rather than ignored (a typo in a config must not silently fall back to a default).
 */
import { Decimal } from 'decimal.js';
import { z } from 'zod';
import { Dec } from '../core/decimal.js';
import { ConfigError, describeValue } from '../core/errors.js';
import { didYouMean } from '../core/suggest.js';

export interface DecimalParamOptions {
  /** Smallest accepted value (inclusive). */
  min?: Decimal.Value;
  /** Largest accepted value (inclusive). */
  max?: Decimal.Value;
  /** Refuse zero and negatives. */
  positive?: boolean;
}

/**
 * A decimal parameter (money, sizes, shares of equity): accepts a decimal string, a Decimal, or a
 * number as a YAML file gives it (`0.01`, read through its shortest decimal form), and yields a
 * Decimal. Give defaults as strings through `.prefault('0.01')` or as Decimals through `.default(dec('0.01'))`.
 */
export function zDecimal(options: DecimalParamOptions = {}) {
  const min = options.min === undefined ? undefined : new Dec(options.min);
  const max = options.max === undefined ? undefined : new Dec(options.max);
  return z
    .union([z.string(), z.number(), z.custom<Decimal>((v) => Decimal.isDecimal(v), 'expected a Decimal')])
    .transform((value, ctx): Decimal => {
      let d: Decimal;
      try {
        d = new Dec(typeof value === 'number' ? String(value) : (value as Decimal.Value));
      } catch {
        ctx.addIssue({ code: 'custom', message: `expected a decimal number, got ${describeValue(value)}` });
        return z.NEVER;
      }
      if (!d.isFinite()) {
        ctx.addIssue({ code: 'custom', message: `expected a finite decimal number, got ${describeValue(String(value))}` });
        return z.NEVER;
      }
      if (options.positive && d.lte(0)) ctx.addIssue({ code: 'custom', message: `expected a positive number, got ${d.toString()}` });
      if (min && d.lt(min)) ctx.addIssue({ code: 'custom', message: `expected at least ${min.toString()}, got ${d.toString()}` });
      if (max && d.gt(max)) ctx.addIssue({ code: 'custom', message: `expected at most ${max.toString()}, got ${d.toString()}` });
      return d;
    });
}

/** Any zod object schema may describe a strategy's parameters. */
export type ParamsSchema = z.ZodObject<z.ZodRawShape>;

/**
 * Parse raw parameters (from a config file or the command line) with a strategy's schema. Unknown
 * keys are refused. `where` names the config file for the error message when known.
 */
export function parseParams<S extends ParamsSchema>(
  strategy: string,
  schema: S,
  raw: unknown,
  where: { file?: string; path?: string; flags?: Readonly<Record<string, string>> } = {},
): z.output<S> {
  const base = where.path ?? 'params';
  if (raw !== undefined && raw !== null && (typeof raw !== 'object' || Array.isArray(raw))) {
    throw new ConfigError(base, `strategy "${strategy}": parameters must be an object, got ${describeValue(raw)}`, {
      ...(where.file !== undefined ? { file: where.file } : {}),
    });
  }
  const result = schema.strict().safeParse(raw ?? {});
  if (result.success) return result.data as z.output<S>;
  const issue = result.error.issues[0]!;
  let key = issue.path.map(String).join('.');
  let message = issue.message;
  if (issue.code === 'unrecognized_keys') {
    const keys = (issue as { keys: string[] }).keys;
    key = [key, keys[0]].filter(Boolean).join('.');
    const known = Object.keys(schema.shape);
    message = `unknown parameter${keys.length > 1 ? 's' : ''} ${keys.map((k) => `"${k}"`).join(', ')}; known: ${known.join(', ') || '(none)'}${didYouMean(keys[0]!, known)}`;
  }
  const more = result.error.issues.length > 1 ? ` (and ${result.error.issues.length - 1} more problem(s))` : '';
  // A parameter given by a flag is named by that flag, not by the file the others came from.
  const flag = where.flags?.[key.split('.')[0]!] ?? (base.startsWith('--') ? base : undefined);
  throw new ConfigError(
    flag !== undefined ? [flag, key].filter(Boolean).join(' ') : key ? `${base}.${key}` : base,
    `strategy "${strategy}": parameter "${key || '(root)'}": ${message}${more}`,
    where.file !== undefined && flag === undefined ? { file: where.file } : {},
  );
}
