/**
 * The cockpit's controls. Each action is logged (`event: control`), counted, and recorded in the store
 * with who asked, from where and when; an action that trades goes through the pipeline as an intent
 * like any strategy's: the guard judges it (its decision is recorded) and the executor carries it out.
 *
 * - pause / resume a strategy: the guard denies every intent of a paused strategy (`strategy_paused`);
 *   its stops and takes stay at the venue, and the strategy keeps running so it resumes up to date.
 * - flatten an account: the guard's kill switch path (HALTED, then its `close_all` intent: cancel every
 *   order, close every position); the account stays HALTED until `resume_account`.
 * - cancel an order: a `cancel` intent of strategy `control`.
 */
import type { Logger } from 'pino';
import { newId as randomId } from '../../core/ids.js';
import { didYouMean } from '../../core/suggest.js';
import type { Decision } from '../../risk/types.js';
import type { ControlRecord, Store } from '../../store/store.js';
import type { CancelIntent } from '../../strategy/intents.js';
import type { PipelineMetrics } from '../metrics.js';
import { CONTROL_STRATEGY } from './tracker.js';
import type { CockpitVenue } from './types.js';
import { latestValue } from './view.js';

export interface ControllerOptions extends Pick<CockpitVenue, 'clock' | 'feed' | 'guard' | 'pipeline' | 'runner' | 'accounts' | 'assets'> {
  readonly store: Store;
  readonly logger: Logger;
  readonly metrics: PipelineMetrics;
  readonly newId?: () => string;
  /** True once shutdown began: no intent is taken then, so a flatten or cancel is refused up front. */
  readonly stopping?: () => boolean;
}

/** Who asks: the name the client gave and the peer address of its request. */
export interface ControlCaller {
  readonly actor: string;
  readonly origin: string;
  /** Why, in the caller's words; empty when none was given. */
  readonly reason: string;
}

/** `by alice: leaving for the weekend`, or `by dashboard` when no reason was given. */
function byCaller(caller: ControlCaller): string {
  return caller.reason ? `by ${caller.actor}: ${caller.reason}` : `by ${caller.actor}`;
}

export interface ControlResult {
  readonly action: ControlRecord['action'];
  readonly target: string;
  readonly outcome: string;
  readonly intentId: string | null;
  readonly at: number;
  readonly wallAt: number;
}

/** A control that names something that does not exist; the status server answers 404. */
export class ControlTargetError extends Error {}

/** A control that cannot run now (the daemon is shutting down); the status server answers 409. */
export class ControlRefusedError extends Error {}

export class Controller {
  readonly #o: ControllerOptions;
  readonly #newId: () => string;

  constructor(options: ControllerOptions) {
    this.#o = options;
    this.#newId = options.newId ?? randomId;
  }

  pause(strategy: string, caller: ControlCaller): ControlResult {
    this.#strategy(strategy);
    const already = this.#o.guard.pausedStrategies().has(strategy);
    if (!already) this.#o.guard.pauseStrategy(strategy, byCaller(caller));
    return this.#record('pause', strategy, caller, null, already ? 'unchanged' : 'applied');
  }

  resume(strategy: string, caller: ControlCaller): ControlResult {
    this.#strategy(strategy);
    const was = this.#o.guard.resumeStrategy(strategy, byCaller(caller));
    return this.#record('resume', strategy, caller, null, was ? 'applied' : 'unchanged');
  }

  flatten(accountId: string, caller: ControlCaller): ControlResult {
    this.#account(accountId);
    this.#running('flatten');
    // The guard emits its close_all on intents$, which the pipeline judges and executes at once.
    const intent = this.#o.guard.flatten(accountId, byCaller(caller));
    return this.#record('flatten', accountId, caller, intent.id, 'submitted');
  }

  resumeAccount(accountId: string, caller: ControlCaller): ControlResult {
    this.#account(accountId);
    this.#o.guard.resume(accountId, `resumed by hand ${byCaller(caller)}`);
    return this.#record('resume_account', accountId, caller, null, 'applied');
  }

  cancel(orderId: string, caller: ControlCaller): ControlResult {
    this.#running('cancel');
    const found = this.#order(orderId);
    const intent: CancelIntent = {
      id: this.#newId(),
      strategy: CONTROL_STRATEGY,
      accountId: found.accountId,
      asset: found.asset,
      createdAt: this.#o.clock.now(),
      kind: 'cancel',
      orderId,
      note: `cancel ${byCaller(caller)}`,
    };
    const decision: Decision | undefined = this.#o.pipeline.submit(intent);
    const outcome = decision === undefined ? 'refused:shutting_down' : decision.verdict === 'approved' ? 'submitted' : `denied:${decision.code}`;
    return this.#record('cancel', orderId, caller, intent.id, outcome);
  }

  #record(action: ControlRecord['action'], target: string, caller: ControlCaller, intentId: string | null, outcome: string): ControlResult {
    const at = this.#o.clock.now();
    const record: ControlRecord = { at, wallAt: Date.now(), actor: caller.actor, origin: caller.origin, action, target, reason: caller.reason || 'no reason given', intentId, outcome };
    this.#o.store.recordControl(record);
    this.#o.metrics.controls.inc({ action, outcome: outcome.split(':')[0]! });
    this.#o.logger.warn({ event: 'control', ...record }, `control: ${action} ${target} by ${caller.actor} (${caller.origin}): ${outcome}`);
    return { action, target, outcome, intentId, at, wallAt: record.wallAt };
  }

  #running(what: string): void {
    if (this.#o.stopping?.()) throw new ControlRefusedError(`the daemon is shutting down: no ${what} now (shutdown keeps protective orders; see shutdown.* in the config)`);
  }

  #strategy(name: string): void {
    const names = this.#o.runner.status().map((s) => s.name);
    if (!names.includes(name)) throw new ControlTargetError(`no strategy named ${JSON.stringify(name)} (its strategies: ${names.join(', ') || 'none'})${didYouMean(name, names)}`);
  }

  #account(accountId: string): void {
    if (!this.#o.accounts.includes(accountId)) {
      throw new ControlTargetError(`account ${JSON.stringify(accountId)} is not traded by this daemon (its accounts: ${this.#o.accounts.join(', ') || 'none'})`);
    }
  }

  #order(orderId: string): { accountId: string; asset: string } {
    const assetOf = new Map<string, string>();
    for (const asset of this.#o.assets) {
      const m = latestValue(this.#o.feed.market$(asset));
      if (m !== undefined) assetOf.set(m.marketId, asset);
    }
    for (const accountId of this.#o.accounts) {
      const order = latestValue(this.#o.feed.orders$(accountId))?.data.find((o) => o.id === orderId && o.status === 'active');
      if (order !== undefined) return { accountId, asset: assetOf.get(order.market) ?? order.market };
    }
    throw new ControlTargetError(`no active order ${JSON.stringify(orderId)} on the accounts traded`);
  }
}
