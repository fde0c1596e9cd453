/** The sandbox server: the platform's API served by the local engine (see ./server.ts). */
export { startSandbox } from './server.js';
export type { SandboxOptions, SandboxHandle, SandboxDescription, SandboxAccountDescription, OrderLedgerEntry } from './types.js';
export { parseSandboxConfig, loadSandboxConfig, defaultSandboxConfig } from './config.js';
export type { SandboxConfig, SandboxUserConfig, SandboxAccountConfig, SandboxMarketConfig, SandboxPriceConfig } from './config.js';
export { DEFAULT_SANDBOX_YAML } from './default-config.js';
export { FaultInjector, NO_FAULTS } from './faults.js';
export type { FaultOptions, FaultAction, FaultDecision } from './faults.js';
export { RateLimiter } from './rate-limiter.js';
export type { RateBucket, RateWindow, RateLimitRefusal } from './rate-limiter.js';
export { SeededRandom } from './prng.js';
export { RandomWalkTrack, CandleReplayTrack, readCandleFile, inferCandleMs } from './price-tracks.js';
export type { PriceTrack, PricePoint } from './price-tracks.js';
export { SandboxClock } from './sandbox-clock.js';
export { ROUTES, Router } from './routes.js';
