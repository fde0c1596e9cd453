/**
 * The two wire formats: a generic JSON webhook, and Telegram's Bot API `sendMessage`. Secrets come
 * from the environment; the Bot API carries its token in the URL, so no error or log line here ever
 * includes a URL, only the channel's name and the receiver's status.
 */
import { ConfigError } from '../../core/errors.js';
import type { NotifyChannelConfig } from './config.js';
import { SendError, type Transport } from './outbox.js';

export interface ChannelSecrets {
  /** Values that must never leave in a message (filled by the channels, read by the notifier). */
  readonly secrets: string[];
}

/** Build the transport of a configured channel; a missing environment variable is an error naming the key. */
export function createTransport(channel: NotifyChannelConfig, index: number, env: Record<string, string | undefined>, out: ChannelSecrets): Transport {
  const name = channel.name ?? `${channel.type}${index}`;
  const key = `notify.channels.${index}`;
  const read = (variable: string, field: string): string => {
    const v = env[variable]?.trim();
    if (v === undefined || v === '') throw new ConfigError(`${key}.${field}`, `the environment variable ${variable} is not set`);
    return v;
  };
  if (channel.type === 'webhook') {
    const token = channel.tokenEnv === undefined ? undefined : read(channel.tokenEnv, 'tokenEnv');
    if (token) out.secrets.push(token);
    return {
      name,
      send: (m, signal) =>
        post(name, channel.url, { event: m.event, at: new Date(m.at).toISOString(), text: m.text, data: m.data }, signal, token ? { authorization: `Bearer ${token}` } : {}),
    };
  }
  const token = read(channel.tokenEnv, 'tokenEnv');
  const chatId = read(channel.chatIdEnv, 'chatIdEnv');
  out.secrets.push(token);
  const url = `${channel.baseUrl.replace(/\/+$/, '')}/bot${token}/sendMessage`;
  return {
    name,
    send: (m, signal) => post(name, url, { chat_id: chatId, text: m.text, disable_web_page_preview: true }, signal, {}),
  };
}

async function post(name: string, url: string, body: unknown, signal: AbortSignal, headers: Record<string, string>): Promise<void> {
  let res: Response;
  try {
    res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body), signal, redirect: 'error' });
  } catch (error) {
    // fetch's errors can name the URL in their cause; the message here never does.
    const what = (error as Error)?.name === 'TimeoutError' || (error as Error)?.name === 'AbortError' ? 'timed out' : 'could not connect';
    throw new SendError(`${name}: ${what}`, true);
  }
  const text = await res.text().catch(() => '');
  if (res.ok) return;
  const retryAfter = retryAfterMs(res, text);
  const detail = description(text);
  const retryable = res.status === 429 || res.status >= 500;
  throw new SendError(`${name}: HTTP ${res.status}${detail ? ` (${detail})` : ''}`, retryable, retryAfter);
}

/** `Retry-After` seconds, or Telegram's `parameters.retry_after`. */
function retryAfterMs(res: Response, text: string): number | undefined {
  const header = Number(res.headers.get('retry-after'));
  if (Number.isFinite(header) && header > 0) return header * 1000;
  try {
    const v = (JSON.parse(text) as { parameters?: { retry_after?: unknown } }).parameters?.retry_after;
    return typeof v === 'number' && v > 0 ? v * 1000 : undefined;
  } catch {
    return undefined;
  }
}

/** The receiver's own words (Telegram's `description`), short. */
function description(text: string): string {
  try {
    const d = (JSON.parse(text) as { description?: unknown }).description;
    return typeof d === 'string' ? d.slice(0, 160) : '';
  } catch {
    return '';
  }
}
