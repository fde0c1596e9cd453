/**
 * `trades.csv` beside `report.json`: one row per trade, for a spreadsheet or another backtester's
 * tooling. Money is the exact decimal string of report.json; times are ISO UTC.
 */
import { money } from './report-json.js';
import { tradeNet } from './metrics.js';
import type { BacktestResult } from './types.js';

const COLUMNS = ['positionId', 'market', 'direction', 'openedAt', 'closedAt', 'entryPrice', 'exitPrice', 'size', 'realizedPnl', 'fees', 'funding', 'netPnl', 'status', 'closeReason', 'closeOrigin', 'closeIntentId', 'closeNote'] as const;

/** A field as RFC 4180 wants it: quoted when it holds a comma, a quote or a line break. */
function field(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

export function tradesCsv(result: BacktestResult): string {
  const rows = result.trades.map((t) =>
    [
      t.positionId,
      t.market,
      t.direction,
      new Date(t.openedAt).toISOString(),
      t.closedAt === null ? '' : new Date(t.closedAt).toISOString(),
      money(t.entryPrice),
      t.exitPrice === null ? '' : money(t.exitPrice),
      money(t.size),
      money(t.realizedPnl),
      money(t.fees),
      money(t.funding),
      money(tradeNet(t)),
      t.status,
      t.closeReason ?? '',
      t.closeOrigin?.kind ?? '',
      t.closeOrigin?.intentId ?? '',
      t.closeOrigin?.note ?? '',
    ].map(field).join(','),
  );
  return [COLUMNS.join(','), ...rows].join('\r\n') + '\r\n';
}
