import { backOff } from 'exponential-backoff';
import {
  type AppendResult,
  type EventData,
  type EventStore,
  type ExpectedRevision,
  WrongExpectedVersionError,
} from '@arbor/event-store';
import { AppError } from '../errors';

/** The revision an append expects, from the revision the state was decided on (-1: no stream). */
export const expectedRevisionOf = (revision: number): ExpectedRevision =>
  revision < 0 ? 'no_stream' : BigInt(revision);

/**
 * How a lost race is retried: bounded attempts, and between them an exponential backoff with full
 * jitter (a random wait in [0, min(maxDelayMs, startingDelayMs · 2^(n-1))] before attempt n+1),
 * so writers that collided once do not collide again in lockstep.
 */
export interface RetryPolicy {
  readonly maxAttempts: number;
  readonly startingDelayMs: number;
  readonly maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 3,
  startingDelayMs: 10,
  maxDelayMs: 200,
};

/** What a command decided: the events to append (none: nothing to write) and the answer. */
export interface Decided<R> {
  readonly events: readonly EventData[];
  readonly result: R;
}

/** One command on one stream, as the write path runs it. */
export interface CommandHandling<S, R> {
  readonly stream: string;
  /** The stream's state, fresh from the log (or a cache caught up with it). */
  load(): Promise<S>;
  /** What the append expects, from the state decided on. */
  expectedRevision(state: S): ExpectedRevision;
  /** Throws an AppError to refuse. */
  decide(state: S): Decided<R> | Promise<Decided<R>>;
  /** The step before the append (a fork's own stream, an erasure's key destruction). */
  beforeAppend?(state: S, decided: Decided<R>): Promise<void>;
  afterAppend?(state: S, decided: Decided<R>, appended: AppendResult): void | Promise<void>;
  /** Drops what is stale before the next attempt; may throw to stop retrying. */
  onConflict?(error: WrongExpectedVersionError): void;
}

export interface Handled<R> {
  readonly result: R;
  /** The append's result, or null when nothing was written. */
  readonly appended: AppendResult | null;
}

const attempt = async <S, R>(store: EventStore, h: CommandHandling<S, R>): Promise<Handled<R>> => {
  const state = await h.load();
  const decided = await h.decide(state);
  if (decided.events.length === 0) return { result: decided.result, appended: null };
  await h.beforeAppend?.(state, decided);
  const appended = await store.appendToStream(h.stream, [...decided.events], {
    expectedRevision: h.expectedRevision(state),
  });
  await h.afterAppend?.(state, decided, appended);
  return { result: decided.result, appended };
};

/**
 * The one write path of every stream (conversations, tenants, keys, settings, erasure, admin
 * reads): load → decide → append at the revision decided on. When another writer appended first
 * the store answers WrongExpectedVersionError, and the command is decided again on fresh state
 * after a jittered backoff; after `maxAttempts` lost races it is `concurrency_conflict`.
 */
export const handleCommand = async <S, R>(
  store: EventStore,
  handling: CommandHandling<S, R>,
  policy: RetryPolicy = DEFAULT_RETRY_POLICY,
): Promise<Handled<R>> => {
  try {
    return await backOff(() => attempt(store, handling), {
      numOfAttempts: policy.maxAttempts,
      startingDelay: policy.startingDelayMs,
      maxDelay: policy.maxDelayMs,
      timeMultiple: 2,
      jitter: 'full',
      retry: (e: unknown) => {
        if (!(e instanceof WrongExpectedVersionError)) return false;
        handling.onConflict?.(e);
        return true;
      },
    });
  } catch (e) {
    if (e instanceof WrongExpectedVersionError)
      throw new AppError('concurrency_conflict', 'Concurrent writers kept winning; retry.');
    throw e;
  }
};
