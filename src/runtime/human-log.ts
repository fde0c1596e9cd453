/**
 * The daemon's log for a person at a terminal: one short line per event, in market time (the `mt`
 * every daemon line carries), e.g.
 *
 * ```
 * 2019-05-02 14:00  sma-cross   approved  open long BTC market, quote 5000 x2, stop 5321.5
 * 2019-05-02 15:00  sma-cross   filled    open long BTC @ 5,486.12 size 1.82271
 * 2019-05-04 09:00  sma-cross   filled    close long BTC @ 5,702.50 size 1.82271 pnl +394.41
 * ```
 * It reads the JSON lines the logger writes (so redaction has already happened) and renders the
 * events it knows; others show their message. Executor chatter (each request, each result that went
 * as planned) is left to the JSON log.
 */
import { Writable } from 'node:stream';
import { renderSummary, signed, type RunSummaryFigures } from './run-summary.js';

type Line = Record<string, unknown> & { level?: number; msg?: string; event?: string; mt?: number; time?: string };

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const QUIET = new Set(['intent', 'request']);

/** A writable that takes pino's JSON lines and writes human lines to `target`. */
export function humanLogStream(target: NodeJS.WritableStream): Writable {
  let rest = '';
  return new Writable({
    write(chunk: Buffer | string, _enc, done) {
      const text = rest + chunk.toString();
      const lines = text.split('\n');
      rest = lines.pop() ?? '';
      const out = lines.map(renderLine).filter((l): l is string => l !== undefined);
      if (out.length === 0) return done();
      target.write(out.join('\n') + '\n', done as (err?: Error | null) => void);
    },
  });
}

/** One JSON log line as a human line, or undefined for a line not worth a person's attention. */
export function renderLine(json: string): string | undefined {
  if (json.trim() === '') return undefined;
  let o: Line;
  try {
    o = JSON.parse(json) as Line;
  } catch {
    return json;
  }
  const when = typeof o.mt === 'number' ? new Date(o.mt).toISOString().slice(0, 16).replace('T', ' ') : (o.time ?? '').slice(11, 19).padEnd(16);
  const who = String(o.strategy ?? (o.event === 'guard_state' ? 'guard' : '')).padEnd(12);
  const row = (what: string, detail: string): string => `${when}  ${who}  ${what.padEnd(8)}  ${detail}`;
  const level = o.level ?? 30;
  switch (o.event) {
    case 'fill': {
      // Funding and other bookkeeping events carry no price: they stay in the JSON log.
      if (o['price'] === undefined) return undefined;
      const pnl = o['closing'] === true ? ` pnl ${signed(String(o['pnl']))}` : '';
      const by = typeof o['origin'] === 'string' && o['origin'] !== 'strategy' ? ` by ${String(o['origin']).replace('_', ' ')}` : '';
      return row('filled', `${o['action']} ${o['direction']} ${o['asset']}${by} @ ${o['price']} size ${o['size']}${pnl}`);
    }
    case 'decision':
      return o['verdict'] === 'approved' ? row('approved', String(o['what'])) : row('denied', `${o['what']}: ${o['code']} (${o['reason']})`);
    case 'result':
      return o['status'] === 'done' ? undefined : row(String(o['status']), `${o['what']}${o['code'] ? `: ${o['code']}` : ''}${o['reason'] ? ` (${o['reason']})` : ''}`);
    case 'guard_state':
      return row(String(o['to']), `${o['from']} → ${o['to']}: ${o['reason']}`);
    case 'summary':
      return `${when}  summary\n${renderSummary(o['summary'] as RunSummaryFigures)}`;
    case 'retry':
      return row('retry', `${o['what']} failed${errorText(o)} (attempt ${o['attempt']} of ${o['attempts']}); again in ${seconds(o['delayMs'])}`);
    default:
      if (o.event !== undefined && QUIET.has(o.event)) return undefined;
      return `${when}  ${level >= 40 || !o.strategy ? `${who}  ${(LEVELS[level] ?? '').padEnd(8)}` : `${who}  ${'log'.padEnd(8)}`}  ${o.msg ?? ''}${requestText(o)}${errorText(o)}`.replace(/\s+$/, '');
  }
}

/** The API call a line is about (the HTTP client's lines carry it), with the venue's code. */
function requestText(o: Line): string {
  return typeof o['request'] === 'string' ? `: ${o['request']}${typeof o['code'] === 'string' ? ` (${o['code']})` : ''}` : '';
}

function seconds(ms: unknown): string {
  return typeof ms === 'number' ? `${(ms / 1000).toFixed(ms < 1000 ? 1 : 0)} s` : 'a moment';
}

function errorText(o: Line): string {
  const err = o['err'] as { message?: string } | undefined;
  return err?.message ? `: ${err.message}` : '';
}
