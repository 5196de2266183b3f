import { EventStoreError } from '../errors';
import {
  type AllFilter,
  type RecordedEvent,
  type Subscription,
  type SubscriptionMessage,
} from '../types';
import { type Wait } from './notifier';

export interface SubscriptionSource {
  head(): bigint | null;
  window(after: bigint, upTo: bigint, filter: AllFilter | undefined): RecordedEvent[];
  waitForAppend(timeoutMs: number): Wait;
}

export interface SubscriptionSettings {
  /** Exclusive start (0 = from the beginning). */
  after: bigint;
  filter: AllFilter | undefined;
  checkpointInterval: number;
  batchSize: number;
  pollIntervalMs: number;
}

const min = (a: bigint, b: bigint): bigint => (a < b ? a : b);

/** Gap-free positions make the window loop miss nothing and repeat nothing (README: Live delivery). */
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
