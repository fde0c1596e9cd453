/**
 * The sandbox's public types: options and handle of `startSandbox`, the description it publishes, and
 * the order ledger the admin surface serves. Shared by server.ts and admin.ts, which both import from
 * here, so neither imports the other's types.
 */
import type { Order } from '../api/types.js';
import type { Engine } from '../engine/index.js';
import type { SandboxConfig } from './config.js';

/** Options of `startSandbox`. */
export interface SandboxOptions {
  /** A validated configuration; wins over `configFile`. Default: the built-in configuration. */
  config?: SandboxConfig;
  /** A YAML file to load when `config` is not given. */
  configFile?: string;
  /** Port to listen on (0 = any free port); default the config's `server.port`. */
  port?: number;
  /**
   * Host to listen on; default the config's `server.host` (127.0.0.1). A non-loopback host is refused
   * unless the config sets its own `adminToken` (the documented default would open the admin surface).
   */
  host?: string;
  /** Write the description JSON (base URL, users, keys, accounts, markets) to this file once listening. */
  describeOut?: string;
  /** One line per notable event (start, engine errors). Default: silent. */
  log?: (line: string) => void;
}

export interface SandboxAccountDescription {
  accountId: string;
  name: string;
  apiTrading: boolean;
  type: string;
  phase: string;
}

export interface SandboxDescription {
  baseUrl: string;
  /** Bearer token of the `/_sandbox/` admin surface. */
  adminToken: string;
  clock: { mode: string; speed: number; startMs: number };
  users: Array<{ name: string; userId: string; apiKey: string; accounts: SandboxAccountDescription[] }>;
  markets: Array<{ id: string; baseAsset: string; category: string }>;
}

export interface SandboxHandle {
  baseUrl: string;
  describe: SandboxDescription;
  /** The engine behind the server (in-process callers may inspect it). */
  engine: Engine;
  /** Sandbox time, unix ms. */
  now(): number;
  close(): Promise<void>;
}

export interface OrderLedgerEntry {
  /** Latest known state of the order. */
  order: Order;
  /** `api`: returned by POST /orders or PATCH /orders/{id}; `engine`: spawned by the engine (children, liquidations). */
  via: 'api' | 'engine';
  /** Name of the user whose key created it (api only). */
  user: string | null;
  idempotencyKey: string | null;
  /** Sequence number of the API request that created it. */
  requestSeq: number | null;
}
