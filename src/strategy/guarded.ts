/**
 * Streams handed to strategy code. RxJS reports a throw inside a plain `subscribe(value => …)`
 * callback as an unhandled error on a later tick, which would end the whole process. The context's
 * streams are `GuardedObservable`s: anything derived from them with `pipe` stays guarded, and a
 * callback that a strategy passes to `subscribe` runs inside a try/catch that reports the throw to
 * the strategy's fault handler (which logs it and stops that strategy only). Every such subscription
 * also joins the strategy's subscription bag, so stopping the strategy ends it.
 *
 * Operator internals subscribe with `Subscriber` objects; those are passed through untouched, so
 * errors inside operators travel down the stream as usual (and end the strategy's intent stream).
 */
import { Observable, Subscriber, Subscription, type Observer, type Operator } from 'rxjs';

export interface GuardScope {
  /** Called with anything a strategy callback threw. */
  fault(error: unknown): void;
  /** Subscriptions made by strategy code; unsubscribed when the strategy stops. */
  readonly bag: Subscription;
}

function isSubscriberLike(value: unknown): boolean {
  if (value instanceof Subscriber) return true;
  // RxJS's own test: an observer that is also a subscription (a Subscriber of another RxJS copy).
  const v = value as Partial<Subscriber<unknown>> | null | undefined;
  return (
    !!v &&
    typeof v.next === 'function' &&
    typeof v.error === 'function' &&
    typeof v.complete === 'function' &&
    typeof v.unsubscribe === 'function' &&
    typeof v.add === 'function'
  );
}

export class GuardedObservable<T> extends Observable<T> {
  readonly #scope: GuardScope;

  constructor(scope: GuardScope, source?: Observable<T>) {
    super();
    this.#scope = scope;
    if (source) this.source = source;
  }

  override lift<R>(operator?: Operator<T, R>): Observable<R> {
    const next = new GuardedObservable<R>(this.#scope);
    next.source = this;
    next.operator = operator;
    return next;
  }

  override subscribe(
    observerOrNext?: Partial<Observer<T>> | ((value: T) => void) | null,
    error?: ((error: unknown) => void) | null,
    complete?: (() => void) | null,
  ): Subscription {
    if (isSubscriberLike(observerOrNext)) return super.subscribe(observerOrNext as Subscriber<T>);
    const observer: Partial<Observer<T>> =
      typeof observerOrNext === 'function'
        ? { next: observerOrNext, ...(error ? { error } : {}), ...(complete ? { complete } : {}) }
        : (observerOrNext ?? {});
    const scope = this.#scope;
    const subscription = super.subscribe({
      next(value) {
        try {
          observer.next?.(value);
        } catch (thrown) {
          scope.fault(thrown);
        }
      },
      error(err) {
        try {
          if (observer.error) observer.error(err);
          else scope.fault(err);
        } catch (thrown) {
          scope.fault(thrown);
        }
      },
      complete() {
        try {
          observer.complete?.();
        } catch (thrown) {
          scope.fault(thrown);
        }
      },
    });
    if (!subscription.closed) {
      scope.bag.add(subscription);
      subscription.add(() => scope.bag.remove(subscription));
    }
    return subscription;
  }
}

/** Wrap a stream for strategy code. */
export function guard<T>(scope: GuardScope, source: Observable<T>): GuardedObservable<T> {
  // A plain pass-through so `source`'s own subscribe logic (a Subject's, a share's) stays in charge.
  return new GuardedObservable<T>(scope, source);
}
