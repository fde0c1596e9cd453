/**
 * The cockpit of a running daemon, in one piece: the tracker that remembers, the views `/status` and
 * the dashboard read, the controls (when a token is configured), and the routes the status server
 * serves them on.
 */
import type { Logger } from 'pino';
import type { Store } from '../../store/store.js';
import type { PipelineMetrics } from '../metrics.js';
import type { ControlCall, ControlRoutes, DashboardRoutes } from '../status-server.js';
import { ControlRefusedError, ControlTargetError, Controller } from './control.js';
import { dashboardFiles } from './page.js';
import { CockpitTracker, type TrackerSources } from './tracker.js';
import type { CockpitVenue } from './types.js';
import { dashboardState, statusBody, type ViewSources } from './view.js';

export interface CockpitOptions {
  readonly mode: string;
  readonly venue: CockpitVenue;
  readonly external: ViewSources['external'];
  readonly store: Store;
  readonly logger: Logger;
  readonly metrics: PipelineMetrics;
  readonly positionEvents$: TrackerSources['positionEvents$'];
  /** The control token; without it the cockpit is read-only. */
  readonly controlToken?: string;
  readonly pushIntervalMs: number;
  readonly stopping: () => boolean;
}

export class Cockpit {
  readonly tracker: CockpitTracker;
  readonly controller: Controller | undefined;
  readonly #view: ViewSources;
  readonly #o: CockpitOptions;

  constructor(options: CockpitOptions) {
    this.#o = options;
    const v = options.venue;
    this.tracker = new CockpitTracker({
      clock: v.clock,
      feed: v.feed,
      guard: v.guard,
      executor: v.executor,
      accounts: v.accounts,
      assets: v.assets,
      positionEvents$: options.positionEvents$,
      strategyStatus$: v.runner.status$,
    });
    this.#view = { ...v, mode: options.mode, external: options.external, tracker: this.tracker, stopping: options.stopping, control: options.controlToken !== undefined };
    this.controller =
      options.controlToken === undefined
        ? undefined
        : new Controller({ ...v, store: options.store, logger: options.logger, metrics: options.metrics, stopping: options.stopping });
  }

  /** Subscribe before the pipeline starts. */
  start(): this {
    this.tracker.start();
    return this;
  }

  status(): Record<string, unknown> {
    return statusBody(this.#view);
  }

  get dashboardRoutes(): DashboardRoutes {
    return {
      files: dashboardFiles(),
      state: (afterSeq) => dashboardState(this.#view, afterSeq),
      seqOf: (state) => (state as { seq: number }).seq,
      pushIntervalMs: this.#o.pushIntervalMs,
    };
  }

  get controlRoutes(): ControlRoutes | undefined {
    const c = this.controller;
    const token = this.#o.controlToken;
    if (c === undefined || token === undefined) return undefined;
    return {
      token,
      handle: (call: ControlCall) => {
        const caller = { actor: call.actor, origin: call.origin, reason: call.reason };
        if (call.kind === 'strategies') return call.action === 'pause' ? c.pause(call.target, caller) : c.resume(call.target, caller);
        if (call.kind === 'accounts') return call.action === 'flatten' ? c.flatten(call.target, caller) : c.resumeAccount(call.target, caller);
        return c.cancel(call.target, caller);
      },
      statusOf: (error) => (error instanceof ControlTargetError ? 404 : error instanceof ControlRefusedError ? 409 : 500),
    };
  }

  stop(): void {
    this.tracker.stop();
  }
}
