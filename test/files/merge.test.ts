import { describe, expect, it } from 'vitest';
import { mergeByTime, readCandleFile, type CandleRow } from '../../src/feed/files/index.js';
import { sharedFile } from '../data.js';

const WHY = 'merging two real markets minute by minute';
const BTC_1M = sharedFile('binance-btcusdt-1m-2021-04-20_2021-05-20.csv', WHY);
// Asked only when the first is there, so a fresh clone prints one line.
const ETH_1M = BTC_1M && sharedFile('binance-ethusdt-1m-2021-04-20_2021-05-20.csv', WHY);

async function* rows(times: number[]): AsyncGenerator<{ time: number; tag: string }> {
  for (const [i, time] of times.entries()) yield { time, tag: `${time}#${i}` };
}

describe('mergeByTime', () => {
  it('merges by time and breaks ties in source (market) order', async () => {
    const out: string[] = [];
    for await (const m of mergeByTime([
      { key: 'ETH', rows: rows([1, 3, 3, 7]) },
      { key: 'BTC', rows: rows([1, 2, 3, 8]) },
      { key: 'SOL', rows: rows([0, 3, 9]) },
    ])) {
      out.push(`${m.key}@${m.row.time}`);
    }
    expect(out).toEqual(['SOL@0', 'ETH@1', 'BTC@1', 'BTC@2', 'ETH@3', 'ETH@3', 'BTC@3', 'SOL@3', 'ETH@7', 'BTC@8', 'SOL@9']);
  });

  it('refuses a source that goes back in time, naming it', async () => {
    const run = async () => {
      for await (const _ of mergeByTime([{ key: 'ETH', rows: rows([1, 5]) }, { key: 'BTC', rows: rows([2, 1]) }]));
    };
    await expect(run()).rejects.toThrow('source 1 (BTC) went back in time: 1 after 2');
  });

  it.skipIf(!BTC_1M || !ETH_1M)('merges the real BTC and ETH 1m files into one time-ordered stream', async () => {
    const btc = readCandleFile(BTC_1M!);
    const eth = readCandleFile(ETH_1M!);
    let prev: { time: number; source: number } | undefined;
    let ordered = true;
    const counts = [0, 0];
    const firstKeys: string[] = [];
    for await (const m of mergeByTime<CandleRow>([
      { key: 'BTC', rows: btc },
      { key: 'ETH', rows: eth },
    ])) {
      if (prev && (m.row.time < prev.time || (m.row.time === prev.time && m.source < prev.source))) ordered = false;
      prev = { time: m.row.time, source: m.source };
      counts[m.source]! += 1;
      if (firstKeys.length < 6) firstKeys.push(`${m.key}@${m.row.time}`);
    }
    expect(ordered).toBe(true);
    expect(counts).toEqual([42_915, 42_915]);
    // ETH starts two minutes earlier; then both minutes, BTC first
    expect(firstKeys).toEqual([
      'ETH@1618951200000',
      'ETH@1618951260000',
      'BTC@1618951320000',
      'ETH@1618951320000',
      'BTC@1618951380000',
      'ETH@1618951380000',
    ]);
  });
});
