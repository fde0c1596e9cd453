/**
 * The daemon's Prometheus metrics. One registry per pipeline (not prom-client's global one) so tests
 * and several pipelines in one process never share counters.
 */
import { Counter, Gauge, Registry } from 'prom-client';

export class PipelineMetrics {
  readonly registry = new Registry();
  readonly requests = new Counter({
    name: 'propbot_requests_total',
    help: 'API requests sent, by rate-limit bucket, operation and outcome (ok, refused, transient).',
    labelNames: ['bucket', 'operation', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly rateLimited = new Counter({
    name: 'propbot_rate_limited_total',
    help: 'Responses 429 received, by bucket.',
    labelNames: ['bucket'] as const,
    registers: [this.registry],
  });
  readonly retries = new Counter({
    name: 'propbot_retries_total',
    help: 'Requests sent again after a transient failure, by operation.',
    labelNames: ['operation'] as const,
    registers: [this.registry],
  });
  readonly decisions = new Counter({
    name: 'propbot_guard_decisions_total',
    help: 'Risk guard decisions, by verdict and code (approved intents have code "approved").',
    labelNames: ['verdict', 'code'] as const,
    registers: [this.registry],
  });
  readonly intents = new Counter({
    name: 'propbot_intents_total',
    help: 'Order intents emitted by strategies, by strategy and kind.',
    labelNames: ['strategy', 'kind'] as const,
    registers: [this.registry],
  });
  readonly equity = new Gauge({
    name: 'propbot_equity',
    help: 'Current equity of each account, from the latest risk status (quote units).',
    labelNames: ['account'] as const,
    registers: [this.registry],
  });
  readonly headroom = new Gauge({
    name: 'propbot_drawdown_headroom',
    help: 'Equity above each drawdown floor (quote units), by account and rule.',
    labelNames: ['account', 'rule'] as const,
    registers: [this.registry],
  });
  readonly divergences = new Counter({
    name: 'propbot_guard_divergence_total',
    help: 'Risk snapshots whose equity the guard did not reproduce within one fp9 unit, by account.',
    labelNames: ['account'] as const,
    registers: [this.registry],
  });
  readonly guardState = new Gauge({
    name: 'propbot_guard_state',
    help: 'Guard state of each account: 0 ACTIVE, 1 REDUCING, 2 HALTED.',
    labelNames: ['account'] as const,
    registers: [this.registry],
  });

  readonly controls = new Counter({
    name: 'propbot_control_actions_total',
    help: 'Actions taken from the cockpit (pause, resume, flatten, resume_account, cancel), by outcome.',
    labelNames: ['action', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly notifications = new Counter({
    name: 'propbot_notifications_total',
    help: 'Notifications by channel and outcome: sent, failed (gave up after retries or refused), dropped (queue full or shutdown).',
    labelNames: ['channel', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly notifyQueue = new Gauge({
    name: 'propbot_notify_queue',
    help: 'Notifications waiting to be sent, by channel.',
    labelNames: ['channel'] as const,
    registers: [this.registry],
  });

  text(): Promise<string> {
    return this.registry.metrics();
  }
}
