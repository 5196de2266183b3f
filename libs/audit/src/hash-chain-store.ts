/**
 * `withHashChain(store, secret)`: an EventStore that writes `metadata.chain` on every event it
 * appends, so every writer is covered without knowing about it. Reads pass through unchanged.
 *
 * The chain needs each append to know the hash of the event it follows, and to be written exactly
 * after it. So, per stream: appends are serialized in process; the last revision and hash are
 * cached (bounded LRU, one backwards read of one event on a miss); and the append always reaches
 * the store with the exact revision it chained from. A writer elsewhere (another process) that
 * appended in between makes it fail with WrongExpectedVersion instead of breaking the chain.
 */
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
  /** Streams whose last revision and hash are kept in memory. Default 10,000. */
  cacheStreams?: number;
  /** Times an `any` / `stream_exists` append is re-chained after another writer moved the stream. Default 3. */
  looseRetries?: number;
}

/** Where a stream ends: its last revision and that event's chain hash (null: none, or unchained). */
interface Head {
  revision: CurrentRevision;
  hash: string | null;
}

const NO_STREAM_HEAD: Head = { revision: 'no_stream', hash: null };

const asNumber = (revision: CurrentRevision): bigint => (revision === 'no_stream' ? -1n : revision);

const sameRevision = (a: CurrentRevision, b: CurrentRevision): boolean => a === b;

/** The events as they will be stored, each with its link; ids are fixed here (they are hashed). */
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

  /** The hash of the event at `revision` (for a retry, which chains from where it first did). */
  const hashAt = async (streamName: string, revision: CurrentRevision): Promise<string | null> => {
    if (revision === 'no_stream') return null;
    const [event] = await store.readStream(streamName, { fromRevision: revision, maxCount: 1 });
    return event === undefined ? null : linkHashOf(event.metadata);
  };

  /** Appends chained after `head`, at exactly `head.revision`; remembers the new head on success. */
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

  /**
   * An exact expectation (a revision or `no_stream`). At the head: chain and write. Behind it: a
   * retry, chained from the event it first followed; the store answers it from the ids (same
   * result, nothing written) or refuses it; it cannot write, since the stream is past that
   * revision. Ahead of it: refused here, never handed to the store with a chain from elsewhere.
   */
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

  /**
   * A loose retry of ids already stored. EventStoreDB writes events at the head revision whatever
   * their ids (it checks ids only behind the expected revision, or from the first id for `any`),
   * so the exact-head write below would store them twice there. When every event carries an id
   * and the first is in the stream, the append goes to the store with the caller's expectation,
   * chained from where it first was: the store answers it from the ids (or refuses a partial match).
   * Costs one read of the stream, only for loose appends whose every event has a given id.
   */
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

  /**
   * `any` / `stream_exists`: checked against the head, then written at exactly the head's revision.
   * If that is refused although the head did not move, an id is already stored: the store's own
   * idempotency (by id) answers with the caller's expectation. It cannot write then: one of the ids
   * is in the log for good, so the insert would fail again. If the head moved (another writer),
   * the append is chained again on the new head, a few times, then refused.
   */
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
    subscribeToAll: (subscribeOptions) => store.subscribeToAll(subscribeOptions),
    headPosition: () => store.headPosition(),
    close: () => store.close(),
  };
};
