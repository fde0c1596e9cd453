import { open, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ensureDirectory } from '../core/directories.js';
import { JsonBytes, writeEquityEntries } from './equity-json.js';
import { assembleReport, type ReportJson } from './report-json.js';
import { reportFigures } from './figures.js';
import { renderReportHtml, type HtmlReportOptions } from './html.js';
import { tradesCsv } from './trades-csv.js';
import type { BacktestResult, EquitySeries } from './types.js';

/** What `report.json` holds, but for its equity series (which is only in the file; see `writeReport`). */
export type ReportSummaryJson = Omit<ReportJson, 'equity'>;

/**
 * Write `report.json`, `trades.csv` and `report.html` into `dir` (created if missing); returns their
 * paths and the report without its equity series, built once (a caller that prints it need not build
 * it again). The file is what `JSON.stringify(buildReportJson(result), null, 2)` gives, byte for byte;
 * its equity series (a sample a minute of the run) is streamed in, so a long run's report costs no
 * second copy of the series in memory.
 */
export async function writeReport(
  result: BacktestResult,
  dir: string,
  options: HtmlReportOptions = {},
): Promise<{ json: string; html: string; csv: string; report: ReportSummaryJson }> {
  // Not a recursive mkdir: it hangs forever where the file system refuses new folders (/proc).
  ensureDirectory(dir);
  const json = path.join(dir, 'report.json');
  const html = path.join(dir, 'report.html');
  const figures = reportFigures(result);
  const report = assembleReport(result, EQUITY_MARK, figures);
  await writeReportJson(json, report, result.equity);
  const csv = path.join(dir, 'trades.csv');
  await writeFile(csv, tradesCsv(result));
  await writeFile(html, renderReportHtml(result, options, figures));
  const { equity: _marker, ...summary } = report;
  return { json, html, csv, report: summary };
}

/** Stands where the equity series goes in the text; a string no report field can hold. */
const EQUITY_MARK = '\u0000propbot:equity\u0000';
const CHUNK = 2_000;

async function writeReportJson(file: string, report: object, equity: EquitySeries): Promise<void> {
  const text = JSON.stringify(report, null, 2) + '\n';
  const mark = JSON.stringify(EQUITY_MARK);
  const at = text.indexOf(mark);
  if (at < 0 || text.indexOf(mark, at + 1) >= 0) throw new Error('writeReport: the equity marker must appear exactly once');
  const handle = await open(file, 'w');
  try {
    await handle.write(text.slice(0, at));
    if (equity.length === 0) await handle.write('[]');
    else {
      // The layout JSON.stringify(…, null, 2) gives an array of { time, equity } two levels deep.
      await handle.write('[\n');
      const bytes = new JsonBytes(CHUNK * 96);
      for (let i = 0; i < equity.length; i += CHUNK) {
        const end = Math.min(i + CHUNK, equity.length);
        bytes.reset();
        writeEquityEntries(bytes, equity, i, end);
        bytes.ascii(end < equity.length ? ',\n' : '\n');
        // Written before the buffer is filled again.
        await handle.write(bytes.bytes());
      }
      await handle.write('  ]');
    }
    await handle.write(text.slice(at + mark.length));
  } finally {
    await handle.close();
  }
}
