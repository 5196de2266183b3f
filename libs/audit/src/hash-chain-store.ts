// Per stream: appends serialized, head cached, each written at the exact revision it chained
// from, so a writer elsewhere gets WrongExpectedVersion instead of forking the chain.
import { randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import {
  type AppendOptions,
  type AppendResult,
  createKeyedQueue,
  type CurrentRevision,
  type EventData,
  type EventStore,
  type ExpectedRevision,
  type RecordedEvent,
  InvalidEventError,
  StreamNotFoundError,
  WrongExpectedVersionError,
} from '@arbor/event-store';
import { asStoredJson, chainHash, linkHashOf, withoutChain, type ChainLink } from './chain';

export interface HashChainOptions {
  cacheStreams?: number;
  /** Times an `any` / `stream_exists` append is re-chained after another writer moved the stream. Default 3. */
  looseRetries?: number;
}

interface Head {
  revision: CurrentRevision;
  hash: string | null;
}

const NO_STREAM_HEAD: Head = { revision: 'no_stream', hash: null };

const asNumber = (revision: CurrentRevision): bigint => (revision === 'no_stream' ? -1n : revision);

const sameRevision = (a: CurrentRevision, b: CurrentRevision): boolean => a === b;

const chainEvents = (
  secret: Buffer,
  streamName: string,
  after: Head,
  events: readonly EventData[],
): { events: EventData[]; lastHash: string | null } => {
  let prev = after.hash;
  let revision = asNumber(after.revision);
  const chained = events.map((event, index): EventData => {
    if (typeof event?.metadata !== 'object' || event.metadata === null) {
      throw new InvalidEventError(`event ${index}: metadata must be an object`);
    }
    revision += 1n;
    const id = typeof event.id === 'string' ? event.id.toLowerCase() : (event.id ?? randomUUID());
    const metadata = withoutChain(event.metadata);
    const hash = chainHash(secret, {
      streamName,
      revision,
      eventId: id,
      type: event.type,
      data: asStoredJson(event.data, 'data', index),
      metadata: asStoredJson(metadata, 'metadata', index) as Record<string, unknown>,
      prev,
    });
    const chain: ChainLink = { v: 1, prev, hash };
    prev = hash;
    return { id, type: event.type, data: event.data, metadata: { ...event.metadata, chain } };
  });
  return { events: chained, lastHash: prev };
};

export const withHashChain = (
  store: EventStore,
  secret: Buffer,
  options: HashChainOptions = {},
): EventStore => {
  if (!Buffer.isBuffer(secret) || secret.length === 0) {
    throw new TypeError('withHashChain needs a non-empty secret');
  }
  const heads = new LRUCache<string, Head>({ max: options.cacheStreams ?? 10_000 });
  const queue = createKeyedQueue();
  const looseRetries = options.looseRetries ?? 3;

  const readHead = async (streamName: string): Promise<Head> => {
    try {
      const [last] = await store.readStream(streamName, {
        direction: 'backwards',
        fromRevision: 'end',
        maxCount: 1,
      });
      const head: Head =
        last === undefined
          ? NO_STREAM_HEAD
          : { revision: last.revision, hash: linkHashOf(last.metadata) };
      heads.set(streamName, head);
      return head;
    } catch (error) {
      if (!(error instanceof StreamNotFoundError)) throw error;
      heads.set(streamName, NO_STREAM_HEAD);
      return NO_STREAM_HEAD;
    }
  };

  const cachedHead = (streamName: string): Promise<Head> => {
    const head = heads.get(streamName);
    return head === undefined ? readHead(streamName) : Promise.resolve(head);
  };

  const hashAt = async (streamName: string, revision: CurrentRevision): Promise<string | null> => {
    if (revision === 'no_stream') return null;
    const [event] = await store.readStream(streamName, { fromRevision: revision, maxCount: 1 });
    return event === undefined ? null : linkHashOf(event.metadata);
  };

  const appendAfter = async (
    streamName: string,
    head: Head,
    events: readonly EventData[],
  ): Promise<AppendResult> => {
    const chained = chainEvents(secret, streamName, head, events);
    try {
      const result = await store.appendToStream(streamName, chained.events, {
        expectedRevision: head.revision,
      });
      if (result.nextExpectedRevision === asNumber(head.revision) + BigInt(events.length)) {
        heads.set(streamName, { revision: result.nextExpectedRevision, hash: chained.lastHash });
      } else {
        heads.delete(streamName);
      }
      return result;
    } catch (error) {
      heads.delete(streamName);
      throw error;
    }
  };

  /** Behind the head: a retry the store answers from the ids; ahead: refused here. */
  const appendExact = async (
    streamName: string,
    events: readonly EventData[],
    expected: CurrentRevision,
  ): Promise<AppendResult> => {
    let head = await cachedHead(streamName);
    if (!sameRevision(head.revision, expected)) head = await readHead(streamName);
    if (sameRevision(head.revision, expected)) return appendAfter(streamName, head, events);
    if (asNumber(expected) > asNumber(head.revision)) {
      throw new WrongExpectedVersionError(streamName, expected, head.revision);
    }
    const from: Head = { revision: expected, hash: await hashAt(streamName, expected) };
    const chained = chainEvents(secret, streamName, from, events);
    return store.appendToStream(streamName, chained.events, { expectedRevision: expected });
  };

  /** EventStoreDB writes at the head whatever the ids: a stored-id retry keeps its expectation. */
  const storedRetry = async (
    streamName: string,
    events: readonly EventData[],
    expected: 'any' | 'stream_exists',
  ): Promise<AppendResult | null> => {
    const first = events[0]?.id?.toLowerCase();
    if (first === undefined || events.some((e) => e.id === undefined)) return null;
    let stored: RecordedEvent[];
    try {
      stored = await store.readStream(streamName);
    } catch (error) {
      if (error instanceof StreamNotFoundError) return null;
      throw error;
    }
    const at = stored.findIndex((e) => e.id === first);
    if (at < 0) return null;
    const before = at === 0 ? null : stored[at - 1];
    const from: Head =
      before === null
        ? { revision: 'no_stream', hash: null }
        : { revision: before.revision, hash: linkHashOf(before.metadata) };
    const chained = chainEvents(secret, streamName, from, events);
    return store.appendToStream(streamName, chained.events, { expectedRevision: expected });
  };

  /** Refused at an unmoved head means an id is already stored: the store's idempotency answers. */
  const appendLoose = async (
    streamName: string,
    events: readonly EventData[],
    expected: 'any' | 'stream_exists',
  ): Promise<AppendResult> => {
    let head = await cachedHead(streamName);
    if (expected === 'stream_exists' && head.revision === 'no_stream') {
      head = await readHead(streamName);
    }
    const retried = await storedRetry(streamName, events, expected);
    if (retried !== null) return retried;
    for (let attempt = 0; ; attempt++) {
      if (expected === 'stream_exists' && head.revision === 'no_stream') {
        throw new WrongExpectedVersionError(streamName, expected, 'no_stream');
      }
      try {
        return await appendAfter(streamName, head, events);
      } catch (error) {
        if (!(error instanceof WrongExpectedVersionError)) throw error;
        const fresh = await readHead(streamName);
        if (sameRevision(fresh.revision, head.revision)) {
          const retry = chainEvents(secret, streamName, head, events);
          return store.appendToStream(streamName, retry.events, { expectedRevision: expected });
        }
        if (attempt >= looseRetries) {
          throw new WrongExpectedVersionError(streamName, expected, fresh.revision);
        }
        head = fresh;
      }
    }
  };

  const append = (
    streamName: string,
    events: readonly EventData[],
    expected: ExpectedRevision,
  ): Promise<AppendResult> =>
    expected === 'any' || expected === 'stream_exists'
      ? appendLoose(streamName, events, expected)
      : appendExact(streamName, events, expected);

  return {
    kind: store.kind,
    appendToStream: (streamName, events, appendOptions: AppendOptions = {}) => {
      // Nothing to chain: the store checks the expectation and reports where the stream is.
      if (!Array.isArray(events) || events.length === 0) {
        return store.appendToStream(streamName, events, appendOptions);
      }
      const expected = appendOptions.expectedRevision ?? 'any';
      return queue.run(streamName, () => append(streamName, events, expected));
    },
    readStream: (streamName, readOptions) => store.readStream(streamName, readOptions),
    readAll: (readOptions) => store.readAll(readOptions),
    ...(store.readStreamData === undefined
      ? {}
      : { readStreamData: store.readStreamData.bind(store) }),
    subscribeToAll: (subscribeOptions) => store.subscribeToAll(subscribeOptions),
    headPosition: () => store.headPosition(),
    close: () => store.close(),
  };
};
