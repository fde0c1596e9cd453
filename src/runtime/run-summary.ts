/**
 * What a daemon run did, for the summary it prints when it stops: equity and net pnl against the
 * equity it started with, closed trades and their win rate, the deepest drawdown seen, the headroom
 * left to each challenge floor and the guard's state. Fed by the daemon's own streams as it runs.
 */
import type { Decimal } from 'decimal.js';
import { Dec } from '../core/decimal.js';
import { closedByKind } from '../report/metrics.js';
import type { GuardAccountView } from '../risk/guard.js';

export interface RunSummaryFigures {
  readonly accountId: string;
  readonly startEquity: string | null;
  readonly equity: string | null;
  readonly netPnl: string | null;
  readonly trades: number;
  readonly wins: number;
  /** Percent of closed trades with a positive pnl, 2 places; null before the first close. */
  readonly winRatePct: string | null;
  /** The closed trades by who closed them (the closing fill's origin), most trades first. */
  readonly closedBy: ReadonlyArray<{ readonly kind: string; readonly trades: number; readonly wins: number; readonly pnl: string }>;
  /** Deepest fall from a peak of equity during the run, in percent of that peak (2 places) and in money. */
  readonly maxDrawdownPct: string;
  readonly maxDrawdown: string;
  readonly headroom: ReadonlyArray<{ readonly rule: string; readonly floor: string; readonly headroom: string }>;
  readonly guard: { readonly state: string; readonly reason: string } | null;
}

/** Figures of one account over one run. */
export class RunSummary {
  readonly accountId: string;
  #start: Decimal | undefined;
  #equity: Decimal | undefined;
  #peak: Decimal | undefined;
  #maxDd: Decimal | undefined;
  #maxDdPct: Decimal | undefined;
  #trades = 0;
  #wins = 0;
  readonly #closes: Array<{ kind: string; net: Decimal }> = [];

  constructor(accountId: string) {
    this.accountId = accountId;
  }

  /** Every equity the account reports. */
  observeEquity(equity: Decimal): void {
    this.#start ??= equity;
    this.#equity = equity;
    if (!this.#peak || equity.gt(this.#peak)) this.#peak = equity;
    const dd = this.#peak.minus(equity);
    if (!this.#maxDd || dd.gt(this.#maxDd)) {
      this.#maxDd = dd;
      this.#maxDdPct = this.#peak.isZero() ? dd.times(0) : dd.div(this.#peak).times(100);
    }
  }

  /** A position closed with this realised pnl, by a fill of this origin (`strategy`, `stop_loss`, …). */
  recordClose(pnl: Decimal, kind: string): void {
    this.#trades += 1;
    if (pnl.gt(0)) this.#wins += 1;
    this.#closes.push({ kind, net: pnl });
  }

  figures(view: GuardAccountView | undefined): RunSummaryFigures {
    const equity = view?.equity ?? this.#equity;
    return {
      accountId: this.accountId,
      startEquity: this.#start?.toFixed() ?? null,
      equity: equity?.toFixed() ?? null,
      netPnl: equity && this.#start ? equity.minus(this.#start).toFixed() : null,
      trades: this.#trades,
      wins: this.#wins,
      winRatePct: this.#trades > 0 ? ((this.#wins / this.#trades) * 100).toFixed(2) : null,
      closedBy: closedByKind(this.#closes).map((k) => ({ kind: k.kind, trades: k.trades, wins: k.wins, pnl: k.net.toFixed() })),
      maxDrawdownPct: this.#maxDdPct?.toFixed(2) ?? '0.00',
      maxDrawdown: this.#maxDd?.toFixed() ?? '0',
      headroom: (view?.floors ?? []).map((f) => ({ rule: f.rule, floor: f.floor.toFixed(2), headroom: f.headroom.toFixed(2) })),
      guard: view ? { state: view.state, reason: view.reason } : null,
    };
  }
}

/** The summary as a table for a terminal. */
export function renderSummary(f: RunSummaryFigures): string {
  const rows: Array<[string, string]> = [
    ['account', f.accountId],
    ['equity', `${money(f.equity)} (started at ${money(f.startEquity)})`],
    ['net pnl', signed(f.netPnl)],
    ['trades', `${f.trades} closed, ${f.wins} won; win rate ${f.winRatePct === null ? '—' : `${f.winRatePct}%`}`],
    ...(f.closedBy.length > 0 ? [['closed by', f.closedBy.map((k) => `${k.kind} ${k.trades} (${signed(k.pnl)})`).join(', ')] as [string, string]] : []),
    ['max drawdown', `${f.maxDrawdownPct}% (${money(f.maxDrawdown)})`],
    ...f.headroom.map((h): [string, string] => [`headroom ${h.rule}`, `${money(h.headroom)} above the floor at ${money(h.floor)}`]),
    ['guard', f.guard ? `${f.guard.state}${f.guard.reason ? ` (${f.guard.reason})` : ''}` : '—'],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `  ${k.padEnd(width)}  ${v}`).join('\n');
}

/** Money with two decimals and thousands separators, for reading (the JSON line keeps every digit). */
export function money(value: string | null): string {
  if (value === null) return '—';
  const [int, frac = ''] = new Dec(value).toFixed(2).split('.');
  return `${int!.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${frac}`;
}

export function signed(value: string | null): string {
  if (value === null) return '—';
  return new Dec(value).gt(0) ? `+${money(value)}` : money(value);
}
