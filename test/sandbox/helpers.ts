import { parseSandboxConfig, type SandboxConfig } from '../../src/sandbox/config.js';

export const ALICE_KEY = 'psk_test_alice_0001';
export const BOB_KEY = 'psk_test_bob_0002';
export const ADMIN = 'admin-token-test';

/** A sandbox config for tests: manual clock (time moves only by /_sandbox/advance), flat prices. */
export function testConfig(extra = '', options: { rateLimits?: string; faults?: string } = {}): SandboxConfig {
  return parseSandboxConfig(`seed: sandbox-test
adminToken: ${ADMIN}
server: { maxBodyBytes: 4096 }
clock: { mode: manual, start: "2024-01-03T12:00:00Z" }
${options.rateLimits ?? ''}
${options.faults ?? ''}
markets:
  - baseAsset: BTC
    category: crypto
    price: { randomWalk: { initial: "60000", stepMs: 60s, volatility: "0" } }
  - baseAsset: ETH
    category: crypto
    price: { randomWalk: { initial: "3000", stepMs: 60s, volatility: "0" } }
  - baseAsset: XAU
    category: rwa
    price: { randomWalk: { initial: "2400", stepMs: 60s, volatility: "0" } }
    schedule: { weeklyPauses: [{ start: "Fri 21:00", end: "Sun 22:00" }] }
users:
  - name: alice
    apiKey: ${ALICE_KEY}
    accounts:
      - { name: alice-api, type: real, phase: active_evaluation, initialBalance: "10000", apiTrading: true }
      - { name: alice-manual, type: real, phase: active_evaluation, initialBalance: "10000", apiTrading: false }
  - name: bob
    apiKey: ${BOB_KEY}
    accounts:
      - { name: bob-api, type: demo, initialBalance: "50000", apiTrading: true }
${extra}`);
}

export interface RawAnswer {
  status: number;
  headers: Headers;
  json: any;
  text: string;
}

/** One request with fetch, bypassing the client, to see statuses, headers and bodies as sent. */
export async function raw(
  baseUrl: string,
  method: string,
  path: string,
  options: { key?: string | null; body?: string; headers?: Record<string, string> } = {},
): Promise<RawAnswer> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.key !== null) headers['authorization'] = `Bearer ${options.key ?? ALICE_KEY}`;
  if (options.body !== undefined) headers['content-type'] ??= 'application/json';
  const res = await fetch(baseUrl + path, { method, headers, ...(options.body !== undefined ? { body: options.body } : {}) });
  const text = await res.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, json, text };
}

/** An admin call with the admin token. */
export async function admin(baseUrl: string, method: string, path: string, body?: unknown): Promise<RawAnswer> {
  return raw(baseUrl, method, `/_sandbox/${path}`, {
    key: ADMIN,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
}

/** The rejection of a promise (fails the test when it resolves). */
export async function rejection(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    (v) => {
      throw new Error(`expected a failure, got ${JSON.stringify(v)}`);
    },
    (e: unknown) => e as Error,
  );
}
