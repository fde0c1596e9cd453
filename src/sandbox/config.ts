/**
 * The sandbox configuration: users with API keys and accounts, markets and their price tracks, the
 * clock, rate limits, latency and faults. Read from YAML and validated with zod; every error names the
 * key path and, when read from a file, the line (`ConfigError`). Without a file the embedded default
 * (`DEFAULT_SANDBOX_YAML`, the same text as config/sandbox.yaml) applies.
 */
import path from 'node:path';
import type { Decimal } from 'decimal.js';
import { z } from 'zod';
import { Dec } from '../core/decimal.js';
import { loadConfigFile, parseConfigText } from '../core/config-file.js';
import { uuidFromString } from '../core/ids.js';
import { isLoopbackHost } from '../core/net.js';
import { ACCOUNT_STATUSES, ACCOUNT_TYPES, MARKET_CATEGORIES } from '../api/types.js';
import { ENGINE_PRESETS } from '../engine/presets.js';
import { DEFAULT_ADMIN_TOKEN, DEFAULT_SANDBOX_YAML } from './default-config.js';

const DECIMAL_TEXT = /^-?(?:\d+\.?\d*|\.\d+)$/;

/** A decimal written as a string, or as an integer (a fractional YAML number would be a binary float). */
function decimal(check?: { positive?: boolean; nonNegative?: boolean; below?: string }) {
  return z.union([z.string(), z.number()]).transform((value, ctx): Decimal => {
    let text: string;
    if (typeof value === 'number') {
      if (!Number.isSafeInteger(value)) {
        ctx.addIssue({ code: 'custom', message: `write the fractional number ${value} as a quoted string (e.g. "${value}") so it is read exactly` });
        return z.NEVER;
      }
      text = String(value);
    } else {
      text = value.trim();
    }
    if (!DECIMAL_TEXT.test(text)) {
      ctx.addIssue({ code: 'custom', message: `expected a decimal number such as "60000" or "0.0005", got ${JSON.stringify(value)}` });
      return z.NEVER;
    }
    const d = new Dec(text);
    if (check?.positive && !d.gt(0)) ctx.addIssue({ code: 'custom', message: `must be above 0, got ${text}` });
    if (check?.nonNegative && d.lt(0)) ctx.addIssue({ code: 'custom', message: `must not be negative, got ${text}` });
    if (check?.below !== undefined && !d.lt(check.below)) ctx.addIssue({ code: 'custom', message: `must be below ${check.below}, got ${text}` });
    return d;
  });
}

const DURATION_TEXT = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A duration: a number of ms, or text such as `500ms`, `1s`, `60s`, `1m`. */
const duration = z.union([z.number().int().positive(), z.string()]).transform((value, ctx): number => {
  if (typeof value === 'number') return value;
  const m = DURATION_TEXT.exec(value.trim());
  const ms = m ? Math.round(Number(m[1]) * UNIT_MS[m[2]!]!) : NaN;
  if (!Number.isSafeInteger(ms) || ms <= 0) {
    ctx.addIssue({ code: 'custom', message: `expected a positive duration such as 1s, 60s, 500ms or a number of ms, got ${JSON.stringify(value)}` });
    return z.NEVER;
  }
  return ms;
});

const share = z.number().min(0).max(1);
const ms = z.number().int().nonnegative();

const rateWindow = z.strictObject({ limit: z.number().int().positive(), window: duration });

const randomWalk = z.strictObject({
  initial: decimal({ positive: true }),
  stepMs: duration.default(1000),
  volatility: decimal({ nonNegative: true, below: '1' }).default(new Dec('0.0005')),
  decimals: z.number().int().min(0).max(9).default(2),
  seed: z.string().optional(),
});

const replay = z.strictObject({
  file: z.string().min(1),
  candleMs: duration.optional(),
  loop: z.boolean().default(true),
});

const price = z
  .strictObject({ randomWalk: randomWalk.optional(), replay: replay.optional() })
  .superRefine((p, ctx) => {
    if ((p.randomWalk ? 1 : 0) + (p.replay ? 1 : 0) !== 1) ctx.addIssue({ code: 'custom', message: 'give exactly one of randomWalk or replay' });
  });

const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
const WEEK_TIME = /^(sun|mon|tue|wed|thu|fri|sat)[a-z]*\s+(\d{1,2}):(\d{2})$/i;
/** A point in the UTC week, such as `Fri 21:00`, as ms since Sunday 00:00 UTC. */
const weekTime = z.string().transform((value, ctx): number => {
  const m = WEEK_TIME.exec(value.trim());
  const day = m ? WEEKDAYS.indexOf(m[1]!.toLowerCase().slice(0, 3) as (typeof WEEKDAYS)[number]) : -1;
  const h = m ? Number(m[2]) : NaN;
  const min = m ? Number(m[3]) : NaN;
  if (day < 0 || !(h >= 0 && h < 24) || !(min >= 0 && min < 60)) {
    ctx.addIssue({ code: 'custom', message: `expected a UTC week time such as "Fri 21:00", got ${JSON.stringify(value)}` });
    return z.NEVER;
  }
  return day * 86_400_000 + h * 3_600_000 + min * 60_000;
});

const market = z.strictObject({
  baseAsset: z.string().regex(/^[A-Za-z0-9._-]{1,20}$/, 'a ticker of 1-20 letters, digits, dots, dashes or underscores'),
  id: z.string().uuid().optional(),
  category: z.enum(MARKET_CATEGORIES).default('crypto'),
  price,
  /** Engine market preset (default: the category's). */
  preset: z
    .string()
    .refine((name) => Object.hasOwn(ENGINE_PRESETS.markets, name), {
      error: `expected one of the engine's market presets: ${Object.keys(ENGINE_PRESETS.markets).join(', ')}`,
    })
    .optional(),
  /** Weekly breaks in UTC (e.g. a weekend close for an RWA market); null trades around the clock; omitted: the preset's. */
  schedule: z
    .strictObject({ weeklyPauses: z.array(z.strictObject({ start: weekTime, end: weekTime })).min(1) })
    .nullable()
    .optional(),
  /** Field overrides of the engine's market preset (decimal strings, ms), passed to the engine as given. */
  overrides: z.record(z.string(), z.unknown()).optional(),
});

const account = z.strictObject({
  name: z.string().min(1),
  id: z.string().uuid().optional(),
  type: z.enum(ACCOUNT_TYPES).default('real'),
  /** A phase preset of the engine; omitted: the engine's default for the type (`real` → active_evaluation). */
  phase: z
    .string()
    .refine((name) => Object.hasOwn(ENGINE_PRESETS.phases, name), {
      error: `expected one of the engine's phases: ${Object.keys(ENGINE_PRESETS.phases).join(', ')}`,
    })
    .optional(),
  initialBalance: decimal({ positive: true }).default(new Dec(10000)),
  apiTrading: z.boolean().default(true),
  category: z.enum(MARKET_CATEGORIES).optional(),
  status: z.enum(ACCOUNT_STATUSES).optional(),
  /** Overrides of the phase's rules for this account, passed to the engine as given. */
  rules: z.record(z.string(), z.unknown()).optional(),
});

const user = z.strictObject({
  name: z.string().min(1),
  id: z.string().uuid().optional(),
  apiKey: z.string().min(8, 'an API key has at least 8 characters').regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces'),
  accounts: z.array(account).default([]),
});

export const faultsSchema = z.strictObject({
  enabled: z.boolean().default(false),
  seed: z.union([z.string(), z.number()]).transform(String).optional(),
  serverErrors: z
    .strictObject({ rate: share.default(0), statuses: z.array(z.number().int().min(500).max(599)).min(1).default([500, 502, 503]) })
    .prefault({}),
  latency: z.strictObject({ rate: share.default(0), minMs: ms.default(0), maxMs: ms.default(0) }).prefault({}),
  drop: z.strictObject({ rate: share.default(0), afterActShare: share.default(0.5) }).prefault({}),
  rateLimitStorm: z
    .strictObject({ rate: share.default(0), requests: z.number().int().positive().default(5), retryAfterMs: ms.default(1000) })
    .prefault({}),
});

export const sandboxConfigSchema = z
  .strictObject({
    seed: z.union([z.string(), z.number()]).transform(String).default('propbot-sandbox'),
    adminToken: z.string().min(8, 'the admin token has at least 8 characters'),
    server: z
      .strictObject({
        host: z.string().default('127.0.0.1'),
        // Beside the daemon's dashboard (status.port 8787), so a sandbox and a sandbox-mode run both start on their defaults.
        port: z.number().int().min(0).max(65535).default(8788),
        maxBodyBytes: z.number().int().positive().default(65536),
      })
      .prefault({}),
    clock: z
      .strictObject({
        mode: z.enum(['wall', 'accelerated', 'manual']).default('wall'),
        speed: z.number().positive().default(1),
        start: z.union([z.iso.datetime({ offset: true }), z.number().int().nonnegative()]).optional(),
        tickMs: z.number().int().positive().default(250),
      })
      .prefault({}),
    rateLimits: z
      .strictObject({ read: z.array(rateWindow).default([]), write: z.array(rateWindow).default([]) })
      .prefault({}),
    latency: z.strictObject({ beforeActMs: ms.default(0) }).prefault({}),
    markets: z.array(market).min(1),
    users: z.array(user).min(1),
    faults: faultsSchema.prefault({}),
  })
  .superRefine((c, ctx) => {
    const seen = new Map<string, string>();
    const unique = (value: string, what: string, at: (string | number)[]) => {
      const prior = seen.get(`${what}:${value}`);
      if (prior !== undefined) ctx.addIssue({ code: 'custom', path: at, message: `${what} ${JSON.stringify(value)} is also used at ${prior}` });
      else seen.set(`${what}:${value}`, at.join('.'));
    };
    c.markets.forEach((m, i) => unique(m.baseAsset.toUpperCase(), 'baseAsset', ['markets', i, 'baseAsset']));
    c.users.forEach((u, i) => {
      unique(u.name, 'user name', ['users', i, 'name']);
      unique(u.apiKey, 'apiKey', ['users', i, 'apiKey']);
      if (u.apiKey === c.adminToken) ctx.addIssue({ code: 'custom', path: ['users', i, 'apiKey'], message: 'an API key may not equal adminToken' });
      u.accounts.forEach((a, j) => unique(a.name, 'account name', ['users', i, 'accounts', j, 'name']));
    });
    const bind = bindProblem(c.server.host, c.adminToken);
    if (bind !== undefined) ctx.addIssue({ code: 'custom', path: ['server', 'host'], message: bind });
    if (c.faults.latency.maxMs < c.faults.latency.minMs) {
      ctx.addIssue({ code: 'custom', path: ['faults', 'latency', 'maxMs'], message: 'must not be below minMs' });
    }
  });

/**
 * Why the sandbox must not listen on `host` with `adminToken`, or undefined. Off loopback, the admin
 * surface (prices, clock, every API key through `describe`) answers whoever knows the token, so the
 * documented default token is refused there.
 */
export function bindProblem(host: string, adminToken: string): string | undefined {
  if (isLoopbackHost(host) || adminToken !== DEFAULT_ADMIN_TOKEN) return undefined;
  return `${host} is not a loopback address, and adminToken is the documented default: set your own adminToken to serve beyond this machine`;
}

type ParsedConfig = z.output<typeof sandboxConfigSchema>;

export interface SandboxAccountConfig {
  name: string;
  accountId: string;
  type: (typeof ACCOUNT_TYPES)[number];
  phase: string | undefined;
  initialBalance: Decimal;
  apiTrading: boolean;
  category: (typeof MARKET_CATEGORIES)[number] | undefined;
  status: (typeof ACCOUNT_STATUSES)[number] | undefined;
  rules: Record<string, unknown> | undefined;
}

export interface SandboxUserConfig {
  name: string;
  userId: string;
  apiKey: string;
  accounts: SandboxAccountConfig[];
}

export type SandboxPriceConfig =
  | { kind: 'randomWalk'; initial: Decimal; stepMs: number; volatility: Decimal; decimals: number; seed: string }
  | { kind: 'replay'; file: string; candleMs: number | undefined; loop: boolean };

export interface SandboxMarketConfig {
  baseAsset: string;
  marketId: string;
  category: (typeof MARKET_CATEGORIES)[number];
  price: SandboxPriceConfig;
  preset: string | undefined;
  /** Weekly breaks as [start, end) offsets from Sunday 00:00 UTC, ms; null: around the clock; undefined: the preset's. */
  weeklyPauses: Array<{ startMs: number; endMs: number }> | null | undefined;
  overrides: Record<string, unknown> | undefined;
}

/** The validated configuration, with every id resolved (derived from the seed when not given). */
export interface SandboxConfig {
  seed: string;
  adminToken: string;
  server: { host: string; port: number; maxBodyBytes: number };
  clock: { mode: 'wall' | 'accelerated' | 'manual'; speed: number; startMs: number | undefined; tickMs: number };
  rateLimits: Record<'read' | 'write', Array<{ limit: number; windowMs: number; label: string }>>;
  latency: { beforeActMs: number };
  markets: SandboxMarketConfig[];
  users: SandboxUserConfig[];
  faults: {
    enabled: boolean;
    seed: string;
    serverErrors: { rate: number; statuses: number[] };
    latency: { rate: number; minMs: number; maxMs: number };
    drop: { rate: number; afterActShare: number };
    rateLimitStorm: { rate: number; requests: number; retryAfterMs: number };
  };
}

function windowLabel(ms: number): string {
  if (ms % 86_400_000 === 0) return `${ms / 86_400_000}d`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}

function rateWindows(list: ParsedConfig['rateLimits']['read']): SandboxConfig['rateLimits']['read'] {
  return list.map((w) => ({ limit: w.limit, windowMs: w.window, label: windowLabel(w.window) }));
}

function resolve(parsed: ParsedConfig, baseDir: string): SandboxConfig {
  const seed = parsed.seed;
  return {
    seed,
    adminToken: parsed.adminToken,
    server: parsed.server,
    clock: {
      mode: parsed.clock.mode,
      speed: parsed.clock.mode === 'wall' ? 1 : parsed.clock.speed,
      startMs: parsed.clock.start === undefined ? undefined : typeof parsed.clock.start === 'number' ? parsed.clock.start : Date.parse(parsed.clock.start),
      tickMs: parsed.clock.tickMs,
    },
    rateLimits: { read: rateWindows(parsed.rateLimits.read), write: rateWindows(parsed.rateLimits.write) },
    latency: parsed.latency,
    markets: parsed.markets.map((m) => ({
      baseAsset: m.baseAsset,
      marketId: m.id ?? uuidFromString(`${seed}:market:${m.baseAsset}`),
      category: m.category,
      price: m.price.randomWalk
        ? { kind: 'randomWalk' as const, ...m.price.randomWalk, seed: m.price.randomWalk.seed ?? `${seed}:walk:${m.baseAsset}` }
        : { kind: 'replay' as const, file: path.resolve(baseDir, m.price.replay!.file), candleMs: m.price.replay!.candleMs, loop: m.price.replay!.loop },
      preset: m.preset,
      weeklyPauses: m.schedule === undefined ? undefined : m.schedule === null ? null : m.schedule.weeklyPauses.map((p) => ({ startMs: p.start, endMs: p.end })),
      overrides: m.overrides,
    })),
    users: parsed.users.map((u) => {
      const userId = u.id ?? uuidFromString(`${seed}:user:${u.name}`);
      return {
        name: u.name,
        userId,
        apiKey: u.apiKey,
        accounts: u.accounts.map((a) => ({
          name: a.name,
          accountId: a.id ?? uuidFromString(`${seed}:account:${u.name}:${a.name}`),
          type: a.type,
          phase: a.phase,
          initialBalance: a.initialBalance,
          apiTrading: a.apiTrading,
          category: a.category,
          status: a.status,
          rules: a.rules,
        })),
      };
    }),
    faults: { ...parsed.faults, seed: parsed.faults.seed ?? `${seed}:faults` },
  };
}

/**
 * Parse and validate sandbox YAML. `file` names the source in errors and anchors relative paths
 * (candle files); without it, paths resolve from the working directory. `${VAR}` in strings reads the
 * environment (e.g. `apiKey: ${ALICE_KEY}`).
 */
export function parseSandboxConfig(text: string, file?: string, env?: Record<string, string | undefined>): SandboxConfig {
  const parsed = parseConfigText(text, sandboxConfigSchema, {
    ...(file !== undefined ? { displayName: file } : { displayName: 'built-in sandbox config' }),
    ...(env !== undefined ? { env } : {}),
  });
  return resolve(parsed, file ? path.dirname(path.resolve(file)) : process.cwd());
}

/** Read and validate a sandbox YAML file. */
export function loadSandboxConfig(file: string): SandboxConfig {
  return resolve(loadConfigFile(file, sandboxConfigSchema), path.dirname(path.resolve(file)));
}

/** The built-in configuration (two users, BTC, ETH and a paused-on-weekends RWA market). */
export function defaultSandboxConfig(): SandboxConfig {
  return parseSandboxConfig(DEFAULT_SANDBOX_YAML);
}
