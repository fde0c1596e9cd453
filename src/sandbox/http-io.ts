/**
 * The small HTTP plumbing of the sandbox: reading a bounded body, parsing JSON, answering JSON or an
 * empty 204, and the error envelope `{ "error": <code or null>, "message": "…", …details }`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Decimal } from 'decimal.js';
import { encodeFp9 } from '../core/fp9.js';

/** A request the sandbox refuses before it reaches the engine (bad JSON, too large, unknown route…). */
export class HttpRefusal extends Error {
  readonly status: number;
  /** The body's `error`; null for the spec's statuses without a code. */
  readonly code: string | null;
  readonly details: Record<string, unknown>;
  readonly headers: Record<string, string>;
  constructor(status: number, code: string | null, message: string, details: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
    this.headers = headers;
  }
}

/**
 * Read the whole body, at most `limit` bytes. A larger body is drained (up to a hard cap, past which the
 * connection is dropped) and refused with 400 `body_too_large`, so the client still reads the answer.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    const hardCap = Math.max(limit * 64, 4 * 1024 * 1024);
    if (Number.isFinite(declared) && declared > hardCap) {
      req.socket.destroy();
      reject(new HttpRefusal(400, 'body_too_large', `request body of ${declared} bytes exceeds ${limit} bytes`));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > hardCap) {
        req.socket.destroy();
        return;
      }
      if (size > limit) tooLarge = true;
      if (!tooLarge) chunks.push(chunk);
    });
    req.on('end', () => {
      if (tooLarge) reject(new HttpRefusal(400, 'body_too_large', `request body exceeds ${limit} bytes`, { limit }));
      else resolve(Buffer.concat(chunks));
    });
    req.on('error', reject);
    req.on('close', () => {
      if (!req.complete) reject(new HttpRefusal(400, 'body_incomplete', 'the connection closed before the body was complete'));
    });
  });
}

/** The token of `Authorization: Bearer <token>`, or undefined when the header is absent or malformed. */
export function bearerToken(req: IncomingMessage): string | undefined {
  const header = req.headers['authorization'];
  return typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] : undefined;
}

/** Parse a JSON body; empty means `undefined`. Bad JSON is 400 `invalid_json` with the parser's reason. */
export function parseJson(raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  const text = raw.toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new HttpRefusal(400, 'invalid_json', `request body is not valid JSON: ${(err as Error).message}`);
  }
}

/** JSON-safe details: Decimals become fp9 strings, Dates ISO strings. */
function wireDetails(details: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(details)) {
    if (value instanceof Decimal || Decimal.isDecimal(value)) out[key] = encodeFp9(value as Decimal, 'half-even', key);
    else if (value instanceof Date) out[key] = value.toISOString();
    else if (typeof value === 'bigint') out[key] = value.toString();
    else out[key] = value;
  }
  return out;
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(text);
}

export function sendEmpty(res: ServerResponse, status: number, headers: Record<string, string> = {}): void {
  res.writeHead(status, headers);
  res.end();
}

export function sendError(
  res: ServerResponse,
  status: number,
  code: string | null,
  message: string,
  details: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): void {
  sendJson(res, status, { ...wireDetails(details), error: code, message }, headers);
}
