import { type AppendResult, type EventStore } from '@arbor/event-store';

/**
 * "The log grew", across processes. Several processes on one SQLite log each poll the file
 * (100 ms); with Redis, every append is also published (`<prefix>:head`, the new head
 * position) and every process's subscriptions are woken on it at once. Without Redis the
 * signal stays in-process and nothing changes.
 */
export interface HeadSignal {
  /** Called after every acknowledged append of this process. */
  appended(position: bigint): void;
  /** The store registers how to wake its subscriptions. */
  register(wake: () => void): void;
  /** Wakes the registered subscriptions (a message from another process). */
  wake(): void;
  /** Where `appended` publishes (set once Redis is connected). */
  publishTo(publish: ((position: bigint) => Promise<unknown>) | null): void;
}

export const HEAD_SIGNAL = Symbol('HEAD_SIGNAL');

export const createHeadSignal = (): HeadSignal => {
  const wakers: (() => void)[] = [];
  let publish: ((position: bigint) => Promise<unknown>) | null = null;
  return {
    appended: (position) => {
      if (publish !== null) publish(position).catch(() => undefined);
    },
    register: (wake) => {
      wakers.push(wake);
    },
    wake: () => {
      for (const w of wakers) w();
    },
    publishTo: (p) => {
      publish = p;
    },
  };
};

/** The store, announcing each acknowledged append on the signal. */
export const withAppendSignal = (store: EventStore, signal: HeadSignal): EventStore => ({
  ...store,
  appendToStream: async (streamName, events, options): Promise<AppendResult> => {
    const result = await store.appendToStream(streamName, events, options);
    signal.appended(result.position);
    return result;
  },
});
