import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ensureDirectory } from '../core/directories.js';
import { buildReportJson, type ReportJson } from './report-json.js';
import { renderReportHtml, type HtmlReportOptions } from './html.js';
import { tradesCsv } from './trades-csv.js';
import type { BacktestResult } from './types.js';

/**
 * Write `report.json`, `trades.csv` and `report.html` into `dir` (created if missing); returns their
 * paths and the report object, built once (a caller that prints it too need not build it again).
 */
export async function writeReport(
  result: BacktestResult,
  dir: string,
  options: HtmlReportOptions = {},
): Promise<{ json: string; html: string; csv: string; report: ReportJson }> {
  // Not a recursive mkdir: it hangs forever where the file system refuses new folders (/proc).
  ensureDirectory(dir);
  const json = path.join(dir, 'report.json');
  const html = path.join(dir, 'report.html');
  const report = buildReportJson(result);
  await writeFile(json, JSON.stringify(report, null, 2) + '\n');
  const csv = path.join(dir, 'trades.csv');
  await writeFile(csv, tradesCsv(result));
  await writeFile(html, renderReportHtml(result, options));
  return { json, html, csv, report };
}
