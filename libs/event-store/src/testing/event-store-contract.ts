/**
 * The one contract every EventStore adapter passes: EventStoreDB's semantics, checked only through
 * the port. Each test uses stream names with a fresh random prefix and reads `$all` through a
 * prefix filter, so the suite also runs against a shared EventStoreDB server holding other data.
 */
import { randomUUID } from 'node:crypto';
import { InvalidEventError, StreamNotFoundError, WrongExpectedVersionError } from '../errors';
import {
  type AppendResult,
  type CurrentRevision,
  type EventData,
  type EventMetadata,
  type EventStore,
  type ExpectedRevision,
  type RecordedEvent,
  type Subscription,
  type SubscriptionMessage,
} from '../types';
import { readStreamData } from '../stream-data';

export type EventStoreFactory = () => Promise<{ store: EventStore; cleanup(): Promise<void> }>;

const SUBSCRIPTION_TIMEOUT_MS = 10_000;
const TEST_TIMEOUT_MS = 30_000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A prefix no other test (or other run on a shared server) uses. */
const uniquePrefix = (): string => `ct-${randomUUID().replace(/-/g, '').slice(0, 12)}-`;

const metadata = (extra: Partial<EventMetadata> = {}): EventMetadata => ({
  tenantId: 'tenant-contract',
  actor: 'contract-suite',
  timestamp: new Date().toISOString(),
  ...extra,
});

const event = (type: string, data: unknown = {}, id?: string): EventData => ({
  ...(id === undefined ? {} : { id }),
  type,
  data,
  metadata: metadata(),
});

const events = (n: number, type = 'Counted', ids?: string[]): EventData[] =>
  Array.from({ length: n }, (_, i) => event(type, { i }, ids?.[i]));

const freshIds = (n: number): string[] => Array.from({ length: n }, () => randomUUID());

/** Resolves to the error a promise rejects with; fails the test if it fulfils. */
const rejectionOf = async (promise: Promise<unknown>): Promise<unknown> => {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the operation to fail, it succeeded');
};

const expectWrongVersion = async (
  promise: Promise<unknown>,
  expected: ExpectedRevision,
  actual: CurrentRevision,
) => {
  const error = await rejectionOf(promise);
  expect(error).toBeInstanceOf(WrongExpectedVersionError);
  const wrong = error as WrongExpectedVersionError;
  expect(wrong.expected).toBe(expected);
  expect(wrong.actual).toBe(actual);
};

const readOrEmpty = async (store: EventStore, stream: string): Promise<RecordedEvent[]> => {
  try {
    return await store.readStream(stream);
  } catch (error) {
    if (error instanceof StreamNotFoundError) return [];
    throw error;
  }
};

const dataOf = (recorded: readonly RecordedEvent[]) => recorded.map((e) => e.data);

const eventsOf = (messages: readonly SubscriptionMessage[]): RecordedEvent[] =>
  messages.flatMap((m) => (m.kind === 'event' ? [m.event] : []));

/** Pulls from a subscription with a deadline, so a missing message fails instead of hanging. */
const reader = (subscription: Subscription) => {
  const iterator = subscription[Symbol.asyncIterator]();
  const received: SubscriptionMessage[] = [];
  const next = async (): Promise<IteratorResult<SubscriptionMessage>> => {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no subscription message within ${SUBSCRIPTION_TIMEOUT_MS} ms`)),
        SUBSCRIPTION_TIMEOUT_MS,
      );
    });
    try {
      return await Promise.race([iterator.next(), deadline]);
    } finally {
      clearTimeout(timer);
    }
  };
  return {
    received,
    /** Reads until `done(message)` is true for a message; returns the messages read by this call. */
    until: async (done: (message: SubscriptionMessage) => boolean) => {
      const batch: SubscriptionMessage[] = [];
      for (;;) {
        const result = await next();
        if (result.done) throw new Error('the subscription ended early');
        batch.push(result.value);
        received.push(result.value);
        if (done(result.value)) return batch;
      }
    },
    untilEvents: async (count: number) => {
      const batch: SubscriptionMessage[] = [];
      let seen = 0;
      while (seen < count) {
        const result = await next();
        if (result.done) throw new Error('the subscription ended early');
        batch.push(result.value);
        received.push(result.value);
        if (result.value.kind === 'event') seen++;
      }
      return batch;
    },
    next,
  };
};

const isCaughtUp = (m: SubscriptionMessage) => m.kind === 'caughtUp';

export const describeEventStoreContract = (name: string, factory: EventStoreFactory): void => {
  describe(`EventStore contract: ${name}`, () => {
    let store: EventStore;
    let cleanup: () => Promise<void>;
    let prefix: string;
    const stream = (suffix = 'a') => `${prefix}${suffix}`;
    /** Exclusive start for subscriptions/reads that must see only this test's events. */
    const headBefore = async (): Promise<bigint | 'start'> =>
      (await store.headPosition()) ?? 'start';

    beforeEach(async () => {
      ({ store, cleanup } = await factory());
      prefix = uniquePrefix();
    });

    afterEach(async () => {
      await cleanup();
    });

    describe('expected revision', () => {
      it('any: creates a stream at revision 0 and appends to an existing one', async () => {
        const first = await store.appendToStream(stream(), events(2), { expectedRevision: 'any' });
        expect(first.nextExpectedRevision).toBe(1n);
        const second = await store.appendToStream(stream(), events(1));
        expect(second.nextExpectedRevision).toBe(2n);
        const read = await store.readStream(stream());
        expect(read.map((e) => e.revision)).toEqual([0n, 1n, 2n]);
      });

      it('no_stream: succeeds on a new stream, fails on an existing one with the actual revision', async () => {
        const first = await store.appendToStream(stream(), events(3), {
          expectedRevision: 'no_stream',
        });
        expect(first.nextExpectedRevision).toBe(2n);
        await expectWrongVersion(
          store.appendToStream(stream(), events(1), { expectedRevision: 'no_stream' }),
          'no_stream',
          2n,
        );
        expect(await store.readStream(stream())).toHaveLength(3);
      });

      it('stream_exists: fails on a missing stream, succeeds on an existing one', async () => {
        await expectWrongVersion(
          store.appendToStream(stream(), events(1), { expectedRevision: 'stream_exists' }),
          'stream_exists',
          'no_stream',
        );
        await expect(store.readStream(stream())).rejects.toBeInstanceOf(StreamNotFoundError);
        await store.appendToStream(stream(), events(1));
        const result = await store.appendToStream(stream(), events(1), {
          expectedRevision: 'stream_exists',
        });
        expect(result.nextExpectedRevision).toBe(1n);
      });

      it('exact: succeeds at the current revision', async () => {
        await store.appendToStream(stream(), events(2), { expectedRevision: 'no_stream' });
        const result = await store.appendToStream(stream(), events(2), { expectedRevision: 1n });
        expect(result.nextExpectedRevision).toBe(3n);
      });

      it('exact: fails behind or ahead of the current revision, with expected and actual', async () => {
        await store.appendToStream(stream(), events(3), { expectedRevision: 'no_stream' });
        await expectWrongVersion(
          store.appendToStream(stream(), events(1), { expectedRevision: 1n }),
          1n,
          2n,
        );
        await expectWrongVersion(
          store.appendToStream(stream(), events(1), { expectedRevision: 5n }),
          5n,
          2n,
        );
        expect(await store.readStream(stream())).toHaveLength(3);
      });

      it('exact: fails on a missing stream with actual no_stream', async () => {
        await expectWrongVersion(
          store.appendToStream(stream(), events(1), { expectedRevision: 0n }),
          0n,
          'no_stream',
        );
        await expect(store.readStream(stream())).rejects.toBeInstanceOf(StreamNotFoundError);
      });

      it('exactly one of several concurrent appenders at the same revision wins', async () => {
        await store.appendToStream(stream(), events(1), { expectedRevision: 'no_stream' });
        const attempts = Array.from({ length: 6 }, (_, writer) =>
          store.appendToStream(stream(), [event('Raced', { writer }), event('Raced', { writer })], {
            expectedRevision: 0n,
          }),
        );
        const results = await Promise.allSettled(attempts);
        const won = results.filter((r) => r.status === 'fulfilled');
        const lost = results.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));
        expect(won).toHaveLength(1);
        expect(lost).toHaveLength(5);
        for (const error of lost) expect(error).toBeInstanceOf(WrongExpectedVersionError);
        const read = await store.readStream(stream());
        expect(read).toHaveLength(3);
        const writers = read.slice(1).map((e) => (e.data as { writer: number }).writer);
        expect(writers[0]).toBe(writers[1]);
      });
    });

    describe('atomic appends', () => {
      it('writes the events of one append at consecutive revisions', async () => {
        const result = await store.appendToStream(stream(), events(5), {
          expectedRevision: 'no_stream',
        });
        const read = await store.readStream(stream());
        expect(read.map((e) => e.revision)).toEqual([0n, 1n, 2n, 3n, 4n]);
        expect(dataOf(read)).toEqual([0, 1, 2, 3, 4].map((i) => ({ i })));
        for (let i = 1; i < read.length; i++) {
          expect(read[i].position).toBeGreaterThan(read[i - 1].position);
        }
        expect(result.position).toBe(read[4].position);
      });

      it('a rejected multi-event append writes none of its events', async () => {
        await store.appendToStream(stream(), events(1), { expectedRevision: 'no_stream' });
        await expectWrongVersion(
          store.appendToStream(stream(), events(4, 'Rejected'), { expectedRevision: 'no_stream' }),
          'no_stream',
          0n,
        );
        const read = await store.readStream(stream());
        expect(read.map((e) => e.type)).toEqual(['Counted']);
      });

      it('an invalid event id anywhere in the append writes nothing', async () => {
        const batch = events(3, 'Counted', [randomUUID(), randomUUID(), 'not-a-uuid']);
        await expect(store.appendToStream(stream(), batch)).rejects.toBeInstanceOf(
          InvalidEventError,
        );
        expect(await readOrEmpty(store, stream())).toEqual([]);
      });

      it('data that cannot be serialized anywhere in the append writes nothing', async () => {
        const batch = [event('Ok', { a: 1 }), event('Bad', { big: 1n }), event('Ok', { a: 2 })];
        await expect(store.appendToStream(stream(), batch)).rejects.toThrow();
        expect(await readOrEmpty(store, stream())).toEqual([]);
      });
    });

    describe('idempotent appends (EventStoreDB rules)', () => {
      it('keeps the given ids and generates UUIDs for events without one', async () => {
        const ids = freshIds(2);
        await store.appendToStream(stream(), [...events(2, 'Given', ids), event('Generated')]);
        const read = await store.readStream(stream());
        expect(read.slice(0, 2).map((e) => e.id)).toEqual(ids);
        expect(read[2].id).toMatch(
          /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
        );
        expect(new Set(read.map((e) => e.id)).size).toBe(3);
      });

      it('the same ids at the same exact revision succeed again, write nothing, return the original result', async () => {
        await store.appendToStream(stream(), events(2), { expectedRevision: 'no_stream' });
        const ids = freshIds(3);
        const batch = events(3, 'Turn', ids);
        const original = await store.appendToStream(stream(), batch, { expectedRevision: 1n });
        const retry = await store.appendToStream(stream(), batch, { expectedRevision: 1n });
        expect(retry).toEqual<AppendResult>(original);
        const read = await store.readStream(stream());
        expect(read).toHaveLength(5);
        expect(read.slice(2).map((e) => e.id)).toEqual(ids);
      });

      it('a retry still succeeds after the stream moved on, with the original positions', async () => {
        const ids = freshIds(2);
        const original = await store.appendToStream(stream(), events(2, 'Turn', ids), {
          expectedRevision: 'no_stream',
        });
        await store.appendToStream(stream(), events(3), { expectedRevision: 1n });
        const retry = await store.appendToStream(stream(), events(2, 'Turn', ids), {
          expectedRevision: 'no_stream',
        });
        expect(retry).toEqual<AppendResult>(original);
        expect(await store.readStream(stream())).toHaveLength(5);
      });

      it('with any, re-appending stored ids writes nothing', async () => {
        const ids = freshIds(2);
        const original = await store.appendToStream(stream(), events(2, 'Turn', ids));
        const retry = await store.appendToStream(stream(), events(2, 'Turn', ids));
        expect(retry).toEqual<AppendResult>(original);
        expect(await store.readStream(stream())).toHaveLength(2);
      });

      it('a partial match (some ids stored, some new) is a conflict and writes nothing', async () => {
        const [a, b, c] = freshIds(3);
        await store.appendToStream(stream(), events(2, 'Turn', [a, b]), {
          expectedRevision: 'no_stream',
        });
        await expectWrongVersion(
          store.appendToStream(stream(), events(2, 'Turn', [a, c]), {
            expectedRevision: 'no_stream',
          }),
          'no_stream',
          1n,
        );
        await expectWrongVersion(
          store.appendToStream(stream(), events(3, 'Turn', [a, b, c]), {
            expectedRevision: 'no_stream',
          }),
          'no_stream',
          1n,
        );
        await expectWrongVersion(
          store.appendToStream(stream(), events(2, 'Turn', [a, c]), { expectedRevision: 'any' }),
          'any',
          1n,
        );
        const read = await store.readStream(stream());
        expect(read.map((e) => e.id)).toEqual([a, b]);
      });

      it('stored ids at other revisions than the expected one are a conflict', async () => {
        const [a, b] = freshIds(2);
        await store.appendToStream(stream(), events(2, 'Turn', [a, b]), {
          expectedRevision: 'no_stream',
        });
        // b is stored at revision 1, but this append claims it goes at revision 0.
        await expectWrongVersion(
          store.appendToStream(stream(), events(1, 'Turn', [b]), { expectedRevision: 'no_stream' }),
          'no_stream',
          1n,
        );
        expect(await store.readStream(stream())).toHaveLength(2);
      });
    });

    describe('readStream', () => {
      const seed = async (n = 5) => {
        await store.appendToStream(stream(), events(n), { expectedRevision: 'no_stream' });
      };

      it('reads forwards from the start by default', async () => {
        await seed();
        const read = await store.readStream(stream());
        expect(dataOf(read)).toEqual([0, 1, 2, 3, 4].map((i) => ({ i })));
        expect(read.every((e) => e.streamName === stream())).toBe(true);
      });

      it('reads forwards from a revision, inclusive, up to maxCount', async () => {
        await seed();
        const read = await store.readStream(stream(), { fromRevision: 2n, maxCount: 2 });
        expect(read.map((e) => e.revision)).toEqual([2n, 3n]);
      });

      it('reads backwards from the end and from a revision, inclusive', async () => {
        await seed();
        const fromEnd = await store.readStream(stream(), { direction: 'backwards' });
        expect(fromEnd.map((e) => e.revision)).toEqual([4n, 3n, 2n, 1n, 0n]);
        const fromTwo = await store.readStream(stream(), {
          direction: 'backwards',
          fromRevision: 2n,
          maxCount: 2,
        });
        expect(fromTwo.map((e) => e.revision)).toEqual([2n, 1n]);
        const last = await store.readStream(stream(), {
          direction: 'backwards',
          fromRevision: 'end',
          maxCount: 1,
        });
        expect(last.map((e) => e.revision)).toEqual([4n]);
      });

      it('returns nothing past the end of an existing stream', async () => {
        await seed(2);
        expect(await store.readStream(stream(), { fromRevision: 7n })).toEqual([]);
      });

      it("readStreamData (the store's own where it has one) reads the types and data readStream reads", async () => {
        await seed();
        const range = { fromRevision: 1n, maxCount: 3 };
        const full = await store.readStream(stream(), range);
        expect(await readStreamData(store, stream(), range)).toEqual(
          full.map((e) => ({ revision: e.revision, type: e.type, data: e.data })),
        );
        expect(await readStreamData(store, stream(), { fromRevision: 9n, maxCount: 3 })).toEqual(
          [],
        );
      });

      it('throws StreamNotFoundError for a stream without events', async () => {
        const error = await rejectionOf(store.readStream(stream('missing')));
        expect(error).toBeInstanceOf(StreamNotFoundError);
        expect((error as StreamNotFoundError).streamName).toBe(stream('missing'));
      });
    });

    describe('readAll ($all)', () => {
      it('orders every event by a strictly increasing bigint position, in commit order', async () => {
        const results: AppendResult[] = [];
        for (const [suffix, n] of [
          ['a', 2],
          ['b', 1],
          ['a', 3],
          ['c', 1],
        ] as const) {
          results.push(await store.appendToStream(stream(suffix), events(n, `T${suffix}`)));
        }
        const all = await store.readAll({ filter: { streamPrefixes: [prefix] } });
        expect(all.map((e) => `${e.streamName.slice(prefix.length)}:${e.revision}`)).toEqual([
          'a:0',
          'a:1',
          'b:0',
          'a:2',
          'a:3',
          'a:4',
          'c:0',
        ]);
        for (const e of all) {
          expect(typeof e.position).toBe('bigint');
          expect(typeof e.revision).toBe('bigint');
        }
        for (let i = 1; i < all.length; i++) {
          expect(all[i].position).toBeGreaterThan(all[i - 1].position);
        }
        // Each append reports the position of its last event.
        expect(results.map((r) => r.position)).toEqual([
          all[1].position,
          all[2].position,
          all[5].position,
          all[6].position,
        ]);
        const head = await store.headPosition();
        expect(head).not.toBeNull();
        expect(head as bigint).toBeGreaterThanOrEqual(all[6].position);
      });

      it('reads from a position (inclusive), backwards, and up to maxCount', async () => {
        await store.appendToStream(stream(), events(5));
        const filter = { streamPrefixes: [prefix] };
        const all = await store.readAll({ filter });
        const from = await store.readAll({ filter, fromPosition: all[2].position });
        expect(from.map((e) => e.position)).toEqual(all.slice(2).map((e) => e.position));
        const page = await store.readAll({ filter, fromPosition: all[1].position, maxCount: 2 });
        expect(page.map((e) => e.position)).toEqual([all[1].position, all[2].position]);
        const backwards = await store.readAll({ filter, direction: 'backwards', maxCount: 2 });
        expect(backwards.map((e) => e.position)).toEqual([all[4].position, all[3].position]);
        const backFrom = await store.readAll({
          filter,
          direction: 'backwards',
          fromPosition: all[2].position,
        });
        expect(backFrom.map((e) => e.position)).toEqual(
          all
            .slice(0, 3)
            .reverse()
            .map((e) => e.position),
        );
      });

      it('filters by stream prefix (any of several), by event type (any of several), and by both', async () => {
        await store.appendToStream(stream('x-1'), [event('A', 1), event('B', 2)]);
        await store.appendToStream(stream('y-1'), [event('A', 3), event('C', 4)]);
        await store.appendToStream(stream('z-1'), [event('B', 5)]);
        const data = async (filter: { streamPrefixes?: string[]; eventTypes?: string[] }) =>
          dataOf(await store.readAll({ filter }));
        expect(await data({ streamPrefixes: [stream('x-'), stream('z-')] })).toEqual([1, 2, 5]);
        expect(await data({ streamPrefixes: [prefix], eventTypes: ['A', 'C'] })).toEqual([1, 3, 4]);
        expect(
          await data({ streamPrefixes: [stream('y-'), stream('z-')], eventTypes: ['B'] }),
        ).toEqual([5]);
        expect(await data({ streamPrefixes: [stream('y')], eventTypes: ['B'] })).toEqual([]);
      });
    });

    describe('round trip', () => {
      it('keeps data, type and metadata (tenantId, actor, correlation, causation, timestamp, extras)', async () => {
        const meta = metadata({
          tenantId: 'tenant-7',
          actor: 'key:abc',
          correlationId: randomUUID(),
          causationId: randomUUID(),
          timestamp: '2026-01-02T03:04:05.678Z',
          extra: { nested: [1, 'two', null] },
        });
        const data = { text: 'héllo 🌳 "quoted"\n', n: 1.5, list: [1, { deep: true }], none: null };
        const before = Date.now();
        await store.appendToStream(stream(), [{ type: 'Typed', data, metadata: meta }]);
        const [read] = await store.readStream(stream());
        expect(read.type).toBe('Typed');
        expect(read.data).toEqual(data);
        expect(read.metadata).toEqual(meta);
        expect(read.created).toBeInstanceOf(Date);
        expect(read.created.getTime()).toBeGreaterThanOrEqual(before - 60_000);
        const [viaAll] = await store.readAll({ filter: { streamPrefixes: [prefix] } });
        expect(viaAll).toEqual(read);
      });
    });

    describe('subscribeToAll', () => {
      it(
        'catches up, signals caughtUp once, then delivers live appends',
        async () => {
          const from = await headBefore();
          await store.appendToStream(stream(), events(3, 'Before'));
          const last = (await store.readStream(stream()))[2].position;
          const subscription = store.subscribeToAll({
            fromPosition: from,
            filter: { streamPrefixes: [prefix] },
          });
          try {
            const r = reader(subscription);
            const catchUp = await r.until(isCaughtUp);
            expect(dataOf(eventsOf(catchUp))).toEqual([0, 1, 2].map((i) => ({ i })));
            const caughtUp = catchUp[catchUp.length - 1];
            if (caughtUp.kind === 'caughtUp' && caughtUp.position !== null) {
              expect(caughtUp.position).toBeGreaterThanOrEqual(last);
            }
            await store.appendToStream(stream(), events(2, 'Live'));
            const live = await r.untilEvents(2);
            expect(eventsOf(live).map((e) => e.type)).toEqual(['Live', 'Live']);
            expect(r.received.filter(isCaughtUp)).toHaveLength(1);
          } finally {
            await subscription.unsubscribe();
          }
        },
        TEST_TIMEOUT_MS,
      );

      it(
        'starts after the given position (exclusive)',
        async () => {
          await store.appendToStream(stream(), events(4));
          const all = await store.readStream(stream());
          const subscription = store.subscribeToAll({
            fromPosition: all[1].position,
            filter: { streamPrefixes: [prefix] },
          });
          try {
            const received = eventsOf(await reader(subscription).until(isCaughtUp));
            expect(received.map((e) => e.revision)).toEqual([2n, 3n]);
          } finally {
            await subscription.unsubscribe();
          }
        },
        TEST_TIMEOUT_MS,
      );

      it(
        'from the end delivers only later appends',
        async () => {
          await store.appendToStream(stream(), events(2, 'Old'));
          const subscription = store.subscribeToAll({
            fromPosition: 'end',
            filter: { streamPrefixes: [prefix] },
          });
          try {
            const r = reader(subscription);
            expect(eventsOf(await r.until(isCaughtUp))).toEqual([]);
            await store.appendToStream(stream(), events(1, 'New'));
            const live = eventsOf(await r.untilEvents(1));
            expect(live.map((e) => e.type)).toEqual(['New']);
          } finally {
            await subscription.unsubscribe();
          }
        },
        TEST_TIMEOUT_MS,
      );

      it(
        'resumes from a saved position with no event lost or repeated',
        async () => {
          const from = await headBefore();
          await store.appendToStream(stream(), events(6));
          const filter = { streamPrefixes: [prefix] };
          const first = store.subscribeToAll({ fromPosition: from, filter });
          let saved: bigint;
          try {
            const r = reader(first);
            const seen = eventsOf(await r.untilEvents(3));
            saved = seen[2].position;
            expect(dataOf(seen)).toEqual([0, 1, 2].map((i) => ({ i })));
          } finally {
            await first.unsubscribe();
          }
          await store.appendToStream(
            stream(),
            Array.from({ length: 3 }, (_, k) => event('Counted', { i: 6 + k })),
          );
          const second = store.subscribeToAll({ fromPosition: saved, filter });
          try {
            const rest = eventsOf(await reader(second).untilEvents(6));
            expect(dataOf(rest)).toEqual([3, 4, 5, 6, 7, 8].map((i) => ({ i })));
          } finally {
            await second.unsubscribe();
          }
        },
        TEST_TIMEOUT_MS,
      );

      it(
        'filters, and emits checkpoints while scanning events that do not match',
        async () => {
          const from = await headBefore();
          await store.appendToStream(stream('noise'), events(200, 'Noise'));
          await store.appendToStream(stream(), [event('Wanted', 1)]);
          await store.appendToStream(stream('noise'), events(100, 'Noise'));
          await store.appendToStream(stream(), [event('Wanted', 2)]);
          const subscription = store.subscribeToAll({
            fromPosition: from,
            filter: { streamPrefixes: [prefix], eventTypes: ['Wanted'] },
            checkpointInterval: 32,
          });
          try {
            const r = reader(subscription);
            await r.untilEvents(2);
            const messages = r.received;
            expect(dataOf(eventsOf(messages))).toEqual([1, 2]);
            const checkpoints = messages.flatMap((m) =>
              m.kind === 'checkpoint' ? [m.position] : [],
            );
            expect(checkpoints.length).toBeGreaterThan(0);
            // A checkpoint promises everything up to it was delivered: later events lie beyond it.
            let highestCheckpoint = -1n;
            for (const m of messages) {
              if (m.kind === 'checkpoint') {
                expect(m.position).toBeGreaterThanOrEqual(highestCheckpoint);
                highestCheckpoint = m.position;
              } else if (m.kind === 'event') {
                expect(m.event.position).toBeGreaterThan(highestCheckpoint);
              }
            }
          } finally {
            await subscription.unsubscribe();
          }
        },
        TEST_TIMEOUT_MS,
      );

      it(
        'never loses or repeats an event while appends race the switch from catch-up to live',
        async () => {
          const from = await headBefore();
          const total = 150;
          const writer = (async () => {
            for (let i = 0; i < total; i++) {
              await store.appendToStream(stream(), [event('Raced', i)]);
              if (i % 10 === 0) await sleep(1);
            }
          })();
          await sleep(5);
          const subscription = store.subscribeToAll({
            fromPosition: from,
            filter: { streamPrefixes: [prefix] },
          });
          try {
            const received = eventsOf(await reader(subscription).untilEvents(total));
            await writer;
            expect(dataOf(received)).toEqual(Array.from({ length: total }, (_, i) => i));
          } finally {
            await writer;
            await subscription.unsubscribe();
          }
        },
        TEST_TIMEOUT_MS,
      );

      it(
        'unsubscribe ends an iteration that is waiting for events',
        async () => {
          const subscription = store.subscribeToAll({
            fromPosition: 'end',
            filter: { streamPrefixes: [prefix] },
          });
          const r = reader(subscription);
          await r.until(isCaughtUp);
          const pending = r.next();
          await sleep(20);
          await subscription.unsubscribe();
          const result = await pending;
          expect(result.done).toBe(true);
          await subscription.unsubscribe(); // idempotent
        },
        TEST_TIMEOUT_MS,
      );
    });
  });
};
