/**
 * Wraps any Exchange (the local engine's, in these tests) to inject faults a healthy venue never
 * produces on demand, and to record calls. Everything else passes through to the real implementation.
 */
import type { Exchange, WriteOptions } from '../../src/api/exchange.js';
import { apiError, IdempotencyInFlightError, RateLimitError, RequestTimeoutError, ServerError } from '../../src/api/errors.js';
import type { Clock } from '../../src/core/clock.js';
import type { Call, Fault } from './fake-exchange.js';

export function withFaults(inner: Exchange, clock: Clock) {
  const faults = new Map<keyof Exchange, Fault[]>();
  const calls: Call[] = [];
  const exchange = new Proxy(inner, {
    get(target, prop, receiver) {
      const original = Reflect.get(target, prop, receiver) as unknown;
      if (typeof original !== 'function') return original;
      const op = prop as keyof Exchange;
      return async (...args: unknown[]) => {
        const last = args[args.length - 1] as WriteOptions | undefined;
        const key = last && typeof last === 'object' && 'idempotencyKey' in last ? (last.idempotencyKey ?? null) : null;
        calls.push({ op, args, key, at: clock.now() });
        const fault = faults.get(op)?.shift();
        switch (fault?.kind) {
          case 'server':
            throw new ServerError({ status: 502, code: 'server_error', message: 'injected 502' });
          case 'timeout-before':
            throw new RequestTimeoutError({ status: 0, code: 'request_timeout', message: 'injected timeout (not acted)' });
          case 'rate':
            throw new RateLimitError({ status: 429, code: 'api_key_rate_limit_exceeded', message: 'injected 429', details: { bucket: fault.bucket ?? 'write', retryAt: new Date(fault.retryAt) } });
          case 'in-flight':
            throw new IdempotencyInFlightError({ status: 409, code: 'idempotency_key_in_flight', message: 'injected 409' });
          case 'refuse':
            throw apiError({ status: fault.status, code: fault.code, message: 'injected refusal' });
          case 'hold':
            if (!fault.after) await fault.until;
            break;
          default:
            break;
        }
        const value = await (original as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        if (fault?.kind === 'hold' && fault.after) await fault.until;
        if (fault?.kind === 'timeout-after') {
          throw new RequestTimeoutError({ status: 0, code: 'request_timeout', message: 'injected timeout (acted)' });
        }
        return value;
      };
    },
  });
  return {
    exchange,
    calls,
    fail(op: keyof Exchange, ...f: Fault[]) {
      faults.set(op, [...(faults.get(op) ?? []), ...f]);
    },
    callsOf: (op: keyof Exchange) => calls.filter((c) => c.op === op),
  };
}
