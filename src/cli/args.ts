/**
 * Argument parsers for the CLI. Each throws commander's InvalidArgumentError with what was expected and
 * what was given, so `propbot` prints `error: option '--from <date>' argument 'x' is invalid. …`.
 */
import { InvalidArgumentError } from 'commander';
import { Dec } from '../core/decimal.js';
import type { Decimal } from 'decimal.js';

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/** `2021-05-19` (UTC midnight), an ISO date-time, or unix milliseconds. */
export function parseDateArg(value: string): number {
  if (/^\d{10,14}$/.test(value)) return Number(value);
  const ms = Date.parse(DATE_ONLY.test(value) ? `${value}T00:00:00Z` : value);
  if (!Number.isFinite(ms)) {
    throw new InvalidArgumentError(`expected a date like 2021-05-19, 2021-05-19T12:00:00Z or unix milliseconds, got ${JSON.stringify(value)}`);
  }
  return ms;
}

/** An amount of money: a decimal number above 0 (`100000`, `2500.50`). */
export function parsePositiveDecimalArg(value: string): Decimal {
  if (!/^\d+(\.\d+)?$/.test(value) || new Dec(value).isZero()) throw new InvalidArgumentError(`expected a decimal number above 0 like 100000 or 2500.50, got ${JSON.stringify(value)}`);
  return new Dec(value);
}

export function parseJsonObjectArg(value: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (err) {
    throw new InvalidArgumentError(`expected a JSON object like '{"fast":10}': ${(err as Error).message}`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new InvalidArgumentError(`expected a JSON object like '{"fast":10}', got ${JSON.stringify(value)}`);
  }
  return parsed as Record<string, unknown>;
}

export function parsePositiveInt(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError(`expected a whole number of at least 1, got ${JSON.stringify(value)}`);
  return Number(value);
}

/** Repeatable option: collects every occurrence. */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}
