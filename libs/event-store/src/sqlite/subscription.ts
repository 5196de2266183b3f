import { EventStoreError } from '../errors';
import {
  type AllFilter,
  type RecordedEvent,
  type Subscription,
  type SubscriptionMessage,
} from '../types';
import { type Wait } from './notifier';

/** What a subscription reads from; the SQLite store provides it. */
export interface SubscriptionSource {
  /** Position of the last committed event, or null when the log is empty. */
  head(): bigint | null;
  /** Events with `after < position <= upTo` that pass the filter, in position order. */
  window(after: bigint, upTo: bigint, filter: AllFilter | undefined): RecordedEvent[];
  /** Resolves when this process appends, or after `timeoutMs` (the poll for other processes). */
  waitForAppend(timeoutMs: number): Wait;
}

export interface SubscriptionSettings {
  /** Exclusive start: the last position already seen (0 = from the beginning). */
  after: bigint;
  filter: AllFilter | undefined;
  checkpointInterval: number;
  /** How many positions one read covers: bounds memory per step. */
  batchSize: number;
  pollIntervalMs: number;
}

const min = (a: bigint, b: bigint): bigint => (a < b ? a : b);

/**
 * Why nothing is missed or delivered twice: positions are gap-free and handed out by the single
 * writer in commit order, so once `head` is seen committed, every position up to it is committed
 * too. Each step reads the window (cursor, min(head, cursor + batch)] and moves the cursor to its
 * end; catch-up and live are the same loop, there is no switch-over to race with.
 * Checkpoints fall on every `checkpointInterval`-th position after the start (the positions
 * scanned, matching or not), after the events at or before them.
 */
export const createSqliteSubscription = (
  source: SubscriptionSource,
  settings: SubscriptionSettings,
  onEnd: () => void,
): Subscription & { stop(): void } => {
  const { filter, checkpointInterval, batchSize, pollIntervalMs } = settings;
  if (!Number.isInteger(checkpointInterval) || checkpointInterval < 1) {
    throw new EventStoreError('checkpointInterval must be a positive integer');
  }
  const interval = BigInt(checkpointInterval);
  const batch = BigInt(batchSize);
  let stopped = false;
  let pending: Wait | undefined;

  async function* run(): AsyncGenerator<SubscriptionMessage, void, undefined> {
    let cursor = settings.after;
    let nextCheckpoint = cursor + interval;
    let caughtUp = false;
    try {
      while (!stopped) {
        const head = source.head();
        if (head !== null && head > cursor) {
          const upTo = min(head, cursor + batch);
          for (const event of source.window(cursor, upTo, filter)) {
            while (filter && nextCheckpoint < event.position) {
              yield { kind: 'checkpoint', position: nextCheckpoint };
              if (stopped) return;
              nextCheckpoint += interval;
            }
            yield { kind: 'event', event };
            if (stopped) return;
          }
          while (filter && nextCheckpoint <= upTo) {
            yield { kind: 'checkpoint', position: nextCheckpoint };
            if (stopped) return;
            nextCheckpoint += interval;
          }
          cursor = upTo;
        } else if (!caughtUp) {
          caughtUp = true;
          yield { kind: 'caughtUp', position: head };
        } else {
          pending = source.waitForAppend(pollIntervalMs);
          await pending.promise;
          pending = undefined;
        }
      }
    } finally {
      stopped = true;
      onEnd();
    }
  }

  let iterator: AsyncGenerator<SubscriptionMessage, void, undefined> | undefined;
  const stop = () => {
    stopped = true;
    pending?.wake();
  };
  return {
    [Symbol.asyncIterator]: () => (iterator ??= run()),
    unsubscribe: async () => {
      stop();
      onEnd();
    },
    stop,
  };
};
