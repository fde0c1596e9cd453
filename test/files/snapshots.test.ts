import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Dec } from '../../src/core/decimal.js';
import {
  DataFileError,
  formatSnapshotLine,
  readCandleFile,
  readSnapshotFile,
  SnapshotRecorder,
  type BadRow,
  type SnapshotRow,
} from '../../src/feed/files/index.js';
import { collect, tempDir } from './helpers.js';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

async function all(it: AsyncIterable<SnapshotRow>): Promise<SnapshotRow[]> {
  const out: SnapshotRow[] = [];
  for await (const s of it) out.push(s);
  return out;
}

describe('recorded snapshots', () => {
  it('records snapshots as JSON lines with a header and reads them back exactly', async () => {
    const file = path.join(tmp.dir, 'rec.jsonl');
    const rec = new SnapshotRecorder(file);
    await rec.record({ asset: 'BTC', takenAt: 1618951320000, indexPrice: new Dec('56738.760000001') });
    await rec.record({ asset: 'ETH', takenAt: 1618951320000, indexPrice: '2302.25' });
    await rec.record({ asset: 'BTC', takenAt: 1618951325000, indexPrice: new Dec('56740.1') });
    await rec.close();
    // a second recorder appends without a second header
    const again = new SnapshotRecorder(file);
    await again.record({ asset: 'BTC', takenAt: 1618951330000, indexPrice: '56741' });
    await again.close();
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    expect(lines[0]).toBe('{"format":"propbot-snapshots","version":1}');
    expect(lines[1]).toBe('{"asset":"BTC","takenAt":1618951320000,"indexPrice":"56738.760000001"}');
    expect(lines).toHaveLength(5);

    const raw = await all(readSnapshotFile(file));
    expect(raw.map((s) => [s.asset, s.takenAt, s.indexPrice, s.line])).toEqual([
      ['BTC', 1618951320000, '56738.760000001', 2],
      ['ETH', 1618951320000, '2302.25', 3],
      ['BTC', 1618951325000, '56740.1', 4],
      ['BTC', 1618951330000, '56741', 5],
    ]);
    const btc = await collect(readCandleFile(file, { asset: 'BTC' }));
    expect(btc.map((r) => r.close)).toEqual(['56738.760000001', '56740.1', '56741']);
  });

  it('refuses to format a number price or a bad time', () => {
    expect(() => formatSnapshotLine({ asset: 'BTC', takenAt: 1.5, indexPrice: '1' })).toThrow('takenAt must be unix ms');
    expect(() => formatSnapshotLine({ asset: '', takenAt: 1, indexPrice: '1' })).toThrow('asset');
  });

  it('reports bad snapshot lines (number prices, broken JSON, time going back) with their lines', async () => {
    const file = tmp.write(
      'bad.jsonl',
      '{"asset":"BTC","takenAt":1618951320000,"indexPrice":"1.5"}\n' +
        '{"asset":"BTC","takenAt":1618951321000,"indexPrice":1.6}\n' +
        '{"asset":"BTC","takenAt":16189513\n' +
        '{"asset":"BTC","takenAt":1618951300000,"indexPrice":"1.4"}\n' +
        '{"asset":"BTC","takenAt":1618951322000,"indexPrice":"1.7"}\n',
    );
    const found: BadRow[] = [];
    const rows = await all(readSnapshotFile(file, { onDiagnostic: (d) => d.kind === 'bad_row' && found.push(d) }));
    expect(rows.map((r) => r.indexPrice)).toEqual(['1.5', '1.7']);
    expect(found.map((b) => [b.line, b.reason])).toEqual([
      [2, 'price'],
      [3, 'json'],
      [4, 'out_of_order'],
    ]);
    expect(found[0]!.message).toContain('decimal string');
  });

  it('refuses a file that is not a snapshot recording', async () => {
    const file = tmp.write('c.csv', 'timestamp_ms,open,high,low,close,volume\n1600000000000,1,1,1,1,1\n');
    await expect(all(readSnapshotFile(file))).rejects.toThrow(DataFileError);
    await expect(all(readSnapshotFile(file))).rejects.toThrow('got a propbot-csv file');
  });
});
