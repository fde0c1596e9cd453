/**
 * Idempotency keys derived from the intent, so a retry, a timeout or a restart sends the same key and
 * the venue places an order at most once. The key is a hash of `${intent.id}:${step}` (intent ids are
 * free text and may be long; the header wants a short opaque string).
 */
import { digestText } from '../core/ids.js';

export const IDEMPOTENCY_KEY_PREFIX = 'pb1-';

/** One for every order a backtest sends: ~1.5% of an hourly run that trades every few candles took a Hash object. */
export function idempotencyKey(intentId: string, step: string): string {
  const digest = digestText('sha256', `${intentId}:${step}`, 'base64url');
  return IDEMPOTENCY_KEY_PREFIX + digest.slice(0, 32);
}

/** How long the venue replays a stored response per route (spec, Limits). */
export const REPLAY_WINDOW_MS: Partial<Record<string, number>> = {
  createOrder: 60 * 60_000,
  closeAllAccount: 60_000,
};
