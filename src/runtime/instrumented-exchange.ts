/**
 * Counts every request that crosses the port, by rate-limit bucket, operation and outcome, without the
 * callers knowing: the executor and the pollers share one instrumented exchange.
 */
import type { Exchange, ExchangeOperation } from '../api/exchange.js';
import { OPERATION_BUCKET } from '../api/exchange.js';
import { RateLimitError, TransientFailure, VenueRefusal } from '../api/errors.js';
import type { PipelineMetrics } from './metrics.js';

export function instrumentExchange(exchange: Exchange, metrics: PipelineMetrics): Exchange {
  const wrapped = {} as Record<ExchangeOperation, (...args: unknown[]) => Promise<unknown>>;
  for (const operation of Object.keys(OPERATION_BUCKET) as ExchangeOperation[]) {
    const bucket = OPERATION_BUCKET[operation];
    const call = (exchange[operation] as (...args: unknown[]) => Promise<unknown>).bind(exchange);
    wrapped[operation] = async (...args: unknown[]) => {
      try {
        const result = await call(...args);
        metrics.requests.inc({ bucket, operation, outcome: 'ok' });
        return result;
      } catch (error) {
        const outcome = error instanceof VenueRefusal ? 'refused' : error instanceof TransientFailure ? 'transient' : 'error';
        metrics.requests.inc({ bucket, operation, outcome });
        if (error instanceof RateLimitError) metrics.rateLimited.inc({ bucket });
        throw error;
      }
    };
  }
  return wrapped as unknown as Exchange;
}
