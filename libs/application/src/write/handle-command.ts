import { backOff } from 'exponential-backoff';
import {
  type AppendResult,
  type EventData,
  type EventStore,
  type ExpectedRevision,
  WrongExpectedVersionError,
} from '@arbor/event-store';
import { AppError } from '../errors';

export const expectedRevisionOf = (revision: number): ExpectedRevision =>
  revision < 0 ? 'no_stream' : BigInt(revision);

/** Exponential backoff with full jitter, so writers that collided once do not collide in lockstep. */
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

export interface Decided<R> {
  readonly events: readonly EventData[];
  readonly result: R;
}

export interface CommandHandling<S, R> {
  readonly stream: string;
  load(): Promise<S>;
  expectedRevision(state: S): ExpectedRevision;
  decide(state: S): Decided<R> | Promise<Decided<R>>;
  /** The step before the append (a fork's own stream, an erasure's key destruction). */
  beforeAppend?(state: S, decided: Decided<R>): Promise<void>;
  afterAppend?(state: S, decided: Decided<R>, appended: AppendResult): void | Promise<void>;
  /** Drops what is stale before the next attempt; may throw to stop retrying. */
  onConflict?(error: WrongExpectedVersionError): void;
}

export interface Handled<R> {
  readonly result: R;
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

/** The one write path: load → decide → append at that revision; a lost race is decided again. */
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
