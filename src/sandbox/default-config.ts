/**
 * The admin token of the built-in configuration. Anyone who has read the docs knows it, so a sandbox
 * serving beyond this machine must set its own (see `bindProblem` in ./config.ts).
 */
export const DEFAULT_ADMIN_TOKEN = 'sandbox-admin-token';

/**
 * The built-in sandbox configuration, used when `propbot sandbox` runs without `--config`. Kept
 * identical to config/sandbox.yaml (a test checks it) so the file documents what runs by default.
 */
export const DEFAULT_SANDBOX_YAML = `# yaml-language-server: $schema=../schema/sandbox-config.json
# propbot sandbox: the platform's API served by the local engine on 127.0.0.1.
#   propbot sandbox [--config config/sandbox.yaml] [--port N] [--describe-out FILE]
# This file is the built-in default (src/sandbox/default-config.ts holds the same text).
# Money and prices are decimal strings; durations are ms or text such as 1s, 60s, 500ms.

seed: propbot-sandbox            # ids, random walks and faults derive from it: same seed, same run
adminToken: sandbox-admin-token  # bearer token of the /_sandbox/ admin surface; set your own before any non-loopback server.host

server:
  host: 127.0.0.1
  port: 8788                     # the daemon's dashboard has 8787: both run on their defaults
  maxBodyBytes: 65536            # larger request bodies get 400 body_too_large

clock:
  mode: wall                     # wall | accelerated (speed × wall time) | manual (moves only by POST /_sandbox/advance)
  speed: 1                       # sandbox ms per wall ms, for accelerated
  tickMs: 250                    # wall ms between two price/clock ticks

rateLimits:                      # per API key; a request must fit every window of its bucket
  read:
    - { limit: 20, window: 1s }
    - { limit: 600, window: 60s }
  write:
    - { limit: 5, window: 1s }
    - { limit: 100, window: 60s }

latency:
  beforeActMs: 0                 # wait after a write's idempotency key is marked in flight, before acting

markets:
  - baseAsset: BTC
    category: crypto
    price:
      randomWalk: { initial: "60000", stepMs: 1000, volatility: "0.0005", decimals: 2 }
  - baseAsset: ETH
    category: crypto
    price:
      randomWalk: { initial: "3000", stepMs: 1000, volatility: "0.0007", decimals: 2 }
  - baseAsset: XAU
    category: rwa
    price:
      randomWalk: { initial: "2400", stepMs: 1000, volatility: "0.0002", decimals: 2 }
    schedule:
      weeklyPauses:
        - { start: "Fri 21:00", end: "Sun 22:00" }   # UTC

users:
  # Per account also: id (uuid; default derived from the seed), category (crypto|rwa), status, rules.
  - name: alice
    apiKey: psk_sandbox_alice_7f3c9a51e2
    accounts:
      - name: alice-api
        type: real
        phase: active_evaluation
        initialBalance: "10000"
        apiTrading: true
      - name: alice-manual
        type: real
        phase: active_evaluation
        initialBalance: "10000"
        apiTrading: false
  - name: bob
    apiKey: psk_sandbox_bob_4d81b06c3a
    accounts:
      - name: bob-api
        type: demo                   # phase omitted: the engine's default for the type
        initialBalance: "50000"
        apiTrading: true

faults:
  enabled: false
  serverErrors: { rate: 0, statuses: [500, 502, 503] }
  latency: { rate: 0, minMs: 0, maxMs: 0 }
  drop: { rate: 0, afterActShare: 0.5 }
  rateLimitStorm: { rate: 0, requests: 5, retryAfterMs: 1000 }
`;
