export { DataFileError } from './errors.js';
export { CandleFileReader, readCandleFile } from './candle-file.js';
export { detectLayout, SNAPSHOT_HEADER } from './layouts.js';
export { mergeByTime, type MergeSource, type MergedRow } from './merge.js';
export {
  SnapshotRecorder,
  formatSnapshotLine,
  readSnapshotFile,
  type SnapshotRecord,
  type SnapshotFileOptions,
} from './snapshots.js';
export { rowToCandle, candlePeriodOf, describePeriod } from './to-candle.js';
export {
  FILE_LAYOUTS,
  type FileLayout,
  type CandleRow,
  type SnapshotRow,
  type BadRow,
  type BadRowReason,
  type Gap,
  type TimeUnit,
  type Diagnostic,
  type ReadSummary,
  type CandleFileOptions,
} from './types.js';
export { StoreSnapshotReader, isSqliteFile, type StoreSnapshotOptions } from './store-snapshots.js';
export { fetchDataFile, dataCacheDir, isDataUrl, DataFetchError, type FetchDataOptions, type FetchedData } from './remote.js';
