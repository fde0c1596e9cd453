/** The snapshot streams: types, pollers, the replay feed and the candle builder. */
export * from './types.js';
export * from './snapshots.js';
export { pollSnapshots, backoffDelay, resolveBackoff } from './poll.js';
export type { BackoffOptions, PollFailure, PollOptions } from './poll.js';
export { PollingFeed, UnknownAssetError, FEED_RESOURCES, DEFAULT_POLL_INTERVALS } from './polling-feed.js';
export type { FeedResource, FeedExchange, PollingFeedOptions, FeedError } from './polling-feed.js';
export { ManualFeed } from './manual-feed.js';
export { SnapshotPump } from './snapshot-pump.js';
export type { SnapshotPumpOptions, PublishSelection } from './snapshot-pump.js';
export { CandleBuilder, MultiCandleBuilder, CandleStreams, toCandles, periodStart, isCandlePeriod } from './candles.js';
