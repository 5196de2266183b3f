/**
 * Seals content on append and opens it on read. Outside the hash chain, so the chain still
 * verifies after erasure. A loose expected revision is pinned to the head: the box binds it.
 */
import {
  type EventData,
  type EventStore,
  type ExpectedRevision,
  type RecordedEvent,
  type StreamData,
  type Subscription,
  type SubscriptionMessage,
} from '../types';
import { StreamNotFoundError } from '../errors';
import { hasContent, openData, sealData, sealedBoxOf } from './content';
import { ContentErasedError, type KeyStore } from './key-store';

export interface ContentKeysOptions {
  encrypt?: boolean;
  isContentStream?: (streamName: string) => boolean;
}

const isConversationStream = (name: string): boolean =>
  name.startsWith('conv-') || name.startsWith('tenant-');

const LOOKUPS_AT_ONCE = 32;

export const withContentKeys = (
  store: EventStore,
  keys: KeyStore,
  options: ContentKeysOptions = {},
): EventStore => {
  const encrypt = options.encrypt ?? true;
  const isContentStream = options.isContentStream ?? isConversationStream;

  /** The key that opens a stream's boxes; null once erased (or never made): fields read `[erased]`. */
  const openingKey = async (streamName: string): Promise<Buffer | null> => {
    const key = await keys.existingKey(streamName);
    return key === 'erased' || key === null ? null : key;
  };

  /** Asks the key store once per stream per read call, so another process's erasure is seen next call. */
  const openEvents = async (events: readonly RecordedEvent[]): Promise<RecordedEvent[]> => {
    let streams: Set<string> | null = null;
    for (const event of events) {
      if (sealedBoxOf(event.data) !== null) (streams ??= new Set()).add(event.streamName);
    }
    if (streams === null) return events as RecordedEvent[];
    const keyOf = new Map<string, Buffer | null>();
    const pending = [...streams];
    for (let i = 0; i < pending.length; i += LOOKUPS_AT_ONCE) {
      const batch = pending.slice(i, i + LOOKUPS_AT_ONCE);
      const found = await Promise.all(batch.map(openingKey));
      batch.forEach((stream, j) => keyOf.set(stream, found[j]));
    }
    return events.map((event) =>
      sealedBoxOf(event.data) === null
        ? event
        : {
            ...event,
            data: openData(
              event.type,
              event.data,
              keyOf.get(event.streamName) ?? null,
              event.streamName,
              event.revision,
            ),
          },
    );
  };

  /** Type and data only: one key lookup for the stream, as `openEvents` makes per read call. */
  const openStreamData =
    (read: NonNullable<EventStore['readStreamData']>): EventStore['readStreamData'] =>
    async (streamName, range): Promise<StreamData[]> => {
      const rows = await read(streamName, range);
      if (!rows.some((r) => sealedBoxOf(r.data) !== null)) return rows;
      const key = await openingKey(streamName);
      return rows.map((r) =>
        sealedBoxOf(r.data) === null
          ? r
          : { ...r, data: openData(r.type, r.data, key, streamName, r.revision) },
      );
    };

  const headRevision = async (streamName: string): Promise<bigint> => {
    try {
      const [last] = await store.readStream(streamName, {
        direction: 'backwards',
        fromRevision: 'end',
        maxCount: 1,
      });
      return last === undefined ? -1n : last.revision;
    } catch (e) {
      if (e instanceof StreamNotFoundError) return -1n;
      throw e;
    }
  };

  const sealEvents = async (
    streamName: string,
    events: readonly EventData[],
    expected: ExpectedRevision,
  ): Promise<{ events: readonly EventData[]; expected: ExpectedRevision }> => {
    if (!isContentStream(streamName) || !events.some((e) => hasContent(e.type))) {
      return { events, expected };
    }
    if (!encrypt) {
      // Still no content into an erased stream, even in clear.
      if ((await keys.existingKey(streamName)) === 'erased')
        throw new ContentErasedError(streamName);
      return { events, expected };
    }
    let exact: ExpectedRevision = expected;
    let base: bigint;
    if (expected === 'no_stream') base = -1n;
    else if (typeof expected === 'bigint') base = expected;
    else {
      base = await headRevision(streamName);
      if (expected === 'stream_exists' && base < 0n) return { events, expected };
      exact = base < 0n ? 'no_stream' : base;
    }
    const key = await keys.keyFor(streamName);
    const sealed = events.map((e, i) => ({
      ...e,
      data: sealData(e.type, e.data, key, streamName, base + 1n + BigInt(i)),
    }));
    return { events: sealed, expected: exact };
  };

  const openSubscription = (inner: Subscription): Subscription => ({
    unsubscribe: () => inner.unsubscribe(),
    [Symbol.asyncIterator]: () => {
      const it = inner[Symbol.asyncIterator]();
      return {
        next: async (): Promise<IteratorResult<SubscriptionMessage>> => {
          const r = await it.next();
          if (r.done === true || r.value.kind !== 'event') return r;
          if (sealedBoxOf(r.value.event.data) === null) return r;
          const [event] = await openEvents([r.value.event]);
          return { done: false, value: { kind: 'event', event } };
        },
        return: async (): Promise<IteratorResult<SubscriptionMessage>> =>
          it.return ? it.return() : { done: true, value: undefined },
      };
    },
  });

  return {
    kind: store.kind,
    appendToStream: async (streamName, events, appendOptions = {}) => {
      if (!Array.isArray(events) || events.length === 0) {
        return store.appendToStream(streamName, events, appendOptions);
      }
      const sealed = await sealEvents(streamName, events, appendOptions.expectedRevision ?? 'any');
      return store.appendToStream(streamName, sealed.events, {
        ...appendOptions,
        expectedRevision: sealed.expected,
      });
    },
    readStream: async (streamName, readOptions) =>
      openEvents(await store.readStream(streamName, readOptions)),
    readAll: async (readOptions) => openEvents(await store.readAll(readOptions)),
    ...(store.readStreamData === undefined
      ? {}
      : { readStreamData: openStreamData(store.readStreamData.bind(store)) }),
    subscribeToAll: (subscribeOptions) => openSubscription(store.subscribeToAll(subscribeOptions)),
    headPosition: () => store.headPosition(),
    close: async () => {
      try {
        await store.close();
      } finally {
        await keys.close();
      }
    },
  };
};
