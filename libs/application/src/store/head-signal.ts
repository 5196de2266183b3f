import { type AppendResult, type EventStore } from '@arbor/event-store';

/** "The log grew", across processes: with Redis each append is published, else polling alone. */
export interface HeadSignal {
  appended(position: bigint): void;
  register(wake: () => void): void;
  wake(): void;
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

export const withAppendSignal = (store: EventStore, signal: HeadSignal): EventStore => ({
  ...store,
  appendToStream: async (streamName, events, options): Promise<AppendResult> => {
    const result = await store.appendToStream(streamName, events, options);
    signal.appended(result.position);
    return result;
  },
});
