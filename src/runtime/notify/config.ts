/**
 * The `notify` block of a run config: where to send what. Secrets (the Telegram bot token, a webhook's
 * bearer token) are never written in the file: each is read from the environment variable the block
 * names, at start, and a missing one is an error naming the key.
 */
import { z } from 'zod';

export const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected an environment variable name');

export const NOTIFY_EVENTS = ['fill', 'guard_state', 'denial', 'kill_switch', 'strategy_failed', 'daily_summary', 'daemon'] as const;
export type NotifyEvent = (typeof NOTIFY_EVENTS)[number];

const common = {
  /** Name in logs and metrics; default `webhook`/`telegram` with its position. */
  name: z.string().regex(/^[A-Za-z0-9_.-]+$/, 'expected letters, digits, `_`, `.` or `-`').optional(),
  /** What this channel is told. */
  events: z.array(z.enum(NOTIFY_EVENTS)).min(1, 'expected at least one event'),
  /** With `denial` in `events`: the denial codes to send (e.g. `daily_drawdown_headroom`). */
  denialCodes: z.array(z.string().min(1)).optional(),
};

export const WebhookChannelSchema = z.strictObject({
  type: z.literal('webhook'),
  /** Receives a POST with a JSON body `{ event, at, text, data }`. */
  url: z.string().url('expected an http(s) URL'),
  /** Environment variable whose value is sent as `Authorization: Bearer …`; omitted: no header. */
  tokenEnv: envName.optional(),
  ...common,
});

export const TelegramChannelSchema = z.strictObject({
  type: z.literal('telegram'),
  /** Environment variable holding the bot token. */
  tokenEnv: envName.default('PROPBOT_TELEGRAM_TOKEN'),
  /** Environment variable holding the chat id. */
  chatIdEnv: envName.default('PROPBOT_TELEGRAM_CHAT_ID'),
  /** The Bot API's address (a proxy, or a test receiver). */
  baseUrl: z.string().url('expected an http(s) URL').default('https://api.telegram.org'),
  ...common,
});

export const NotifyConfigSchema = z
  .strictObject({
    channels: z.array(z.discriminatedUnion('type', [WebhookChannelSchema, TelegramChannelSchema])).min(1, 'expected at least one channel'),
    /** Messages waiting per channel; past it the oldest is dropped (and counted). */
    queueSize: z.number().int().min(1).max(10_000).default(100),
    /** Per channel: at most `limit` messages in `windowMs` (Telegram allows about 20 a minute in a group). */
    rate: z.strictObject({ limit: z.number().int().min(1).default(20), windowMs: z.number().int().min(1).default(60_000) }).prefault({}),
    /** Attempts per message, the first included; network errors, 5xx and 429 are retried. */
    attempts: z.number().int().min(1).max(20).default(5),
    timeoutMs: z.number().int().min(100).default(10_000),
  })
  .superRefine((n, ctx) => {
    for (const [i, c] of n.channels.entries()) {
      if (c.events.includes('denial') && (c.denialCodes === undefined || c.denialCodes.length === 0)) {
        ctx.addIssue({ code: 'custom', path: ['channels', i, 'denialCodes'], message: "with 'denial' in events, list the denial codes to send (e.g. [daily_drawdown_headroom])" });
      }
    }
  });

export type NotifyConfig = z.output<typeof NotifyConfigSchema>;
export type NotifyChannelConfig = NotifyConfig['channels'][number];
