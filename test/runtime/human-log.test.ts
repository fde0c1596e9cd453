/**
 * A terminal's log lines for what goes wrong outside a strategy: the HTTP client's failed call names the
 * request and the venue's code; a retried start-up read says what failed once, which attempt it was
 * and when it goes again.
 */
import { describe, expect, it } from 'vitest';
import { renderLine } from '../../src/runtime/human-log.js';

const at = '2026-11-30T01:20:03.512Z';

describe('renderLine', () => {
  it("the HTTP client's failed call: its request and code after the message", () => {
    const line = JSON.stringify({ level: 40, time: at, part: 'http', op: 'listRiskStatuses', request: 'GET /accounts/risk-status', code: 'connection_failed', msg: 'propbot api request failed' });
    expect(renderLine(line)).toBe(`01:20:03${' '.repeat(24)}WARN      propbot api request failed: GET /accounts/risk-status (connection_failed)`);
  });

  it('a retried read: the error once, the attempt of how many, and the wait', () => {
    const retry = (attempt: number, delayMs: number) =>
      JSON.stringify({ level: 40, time: at, event: 'retry', what: 'listRiskStatuses', attempt, attempts: 8, delayMs, err: { message: 'GET /accounts/risk-status: connection failed' }, msg: 'listRiskStatuses failed; trying again in 100 ms' });
    expect(renderLine(retry(1, 100))).toBe(`01:20:03${' '.repeat(24)}retry     listRiskStatuses failed: GET /accounts/risk-status: connection failed (attempt 1 of 8); again in 0.1 s`);
    expect(renderLine(retry(7, 5000))).toMatch(/\(attempt 7 of 8\); again in 5 s$/);
  });
});
