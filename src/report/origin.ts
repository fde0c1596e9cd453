/**
 * Where a fill or a trade's end came from: the strategy intent that asked for it, one of the
 * position's protective orders, the platform (liquidation, a force close with its reason, funding),
 * or the risk guard. Reports, the store and the daemon's log name it for every fill, so a trader can
 * tell why a trade ended.
 */
export const ORIGIN_KINDS = [
  'strategy',
  'stop_loss',
  'take_profit',
  'trailing_stop',
  'liquidation',
  'kill_switch',
  'guard_flatten',
  'force_close',
  'funding',
  /** An order placed outside propbot (the web terminal, another program). */
  'external',
] as const;
export type OriginKind = (typeof ORIGIN_KINDS)[number];

export interface Origin {
  readonly kind: OriginKind;
  /** The intent behind it (the strategy's, or the one that placed the protective order, or the guard's). */
  readonly intentId?: string;
  /** Strategy name of that intent (`risk-guard` for the guard's own). */
  readonly strategy?: string;
  /** The platform's reason of a force close (`stop_accounts_fail`, `weekly_session_risk_close`, …). */
  readonly reason?: string;
  /**
   * The note of the intent that made this fill itself (a strategy's close, the guard's flatten): the
   * strategy's own why, such as "exit channel". Not set for a protective order's fill, whose intent's
   * note was about the entry.
   */
  readonly note?: string;
}

/** What the classification reads of the intent behind an order. */
export interface IntentRef {
  readonly id: string;
  readonly strategy: string;
  /** Set on the guard's own intents: why it acted. */
  readonly cause?: 'kill_switch' | 'guard_flatten';
  /** The intent's note. */
  readonly note?: string;
}

/** What it reads of a position event. */
export interface FillEventRef {
  readonly eventName: string;
  readonly closeReason: string | null;
}

const BY_ORDER_TYPE: Readonly<Record<string, OriginKind>> = {
  stop: 'stop_loss',
  take: 'take_profit',
  trailing_stop: 'trailing_stop',
};

/** What it reads of the order that produced the event. */
export interface FillOrderRef {
  readonly type: string;
  /** Whether the order had a trigger; a `take` without one is how a close at market is sent. */
  readonly triggered: boolean;
}

/**
 * The origin of one position event. `order` is the order that produced it (undefined when unknown or
 * when the platform raised the event itself); `intent` the intent that order (or the order it was
 * spawned from) belongs to.
 */
export function fillOrigin(event: FillEventRef, order: FillOrderRef | undefined, intent: IntentRef | undefined): Origin {
  const by = intent === undefined ? {} : { intentId: intent.id, strategy: intent.strategy };
  if (event.eventName === 'payFunding') return { kind: 'funding' };
  if (event.eventName === 'liquidate' || order?.type === 'liquidation') return { kind: 'liquidation' };
  if (event.eventName === 'forceClose') return { kind: 'force_close', ...(event.closeReason ? { reason: event.closeReason } : {}) };
  const protective = order === undefined || !order.triggered ? undefined : BY_ORDER_TYPE[order.type];
  if (protective !== undefined) return { kind: protective, ...by };
  const note = intent?.note ? { note: intent.note } : {};
  if (intent?.cause !== undefined) return { kind: intent.cause, ...by, ...note };
  if (intent !== undefined) return { kind: 'strategy', ...by, ...note };
  return { kind: 'external' };
}
