import { randomUUID } from 'node:crypto';
import { type EventData, type EventStore, WrongExpectedVersionError } from '@arbor/event-store';
import { describeEventStoreContract } from '@arbor/event-store/testing/event-store-contract';
import { readChain, withoutChain } from './chain';
import { withHashChain } from './hash-chain-store';
import { verifyStore } from './verify-log';
import { chainBlind } from './testing/chain-blind';
import { assertChained, tempLog, type TempLog } from './testing/temp-store';

const secret = Buffer.alloc(32, 42);

const event = (type: string, data: unknown = {}, id?: string): EventData => ({
  ...(id === undefined ? {} : { id }),
  type,
  data,
  metadata: { tenantId: 't', actor: 'test', timestamp: '2025-01-01T00:00:00.000Z' },
});

const errorOf = async (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );

describe('withHashChain on a SQLite log', () => {
  let log: TempLog;
  let raw: EventStore;
  let store: EventStore;

  beforeEach(() => {
    log = tempLog();
    raw = log.open();
    store = withHashChain(raw, secret);
  });

  afterEach(async () => {
    await raw.close();
    log.cleanup();
  });

  it('chains every event to the previous one of its stream, from null', async () => {
    await store.appendToStream('s-a', [event('A'), event('B')], { expectedRevision: 'no_stream' });
    await store.appendToStream('s-b', [event('C')]);
    await store.appendToStream('s-a', [event('D', { n: 1 })], { expectedRevision: 1n });
    await store.appendToStream('s-a', [event('E')], { expectedRevision: 'stream_exists' });
    const all = await raw.readAll();
    expect(all).toHaveLength(5);
    assertChained(all, secret);
    const chains = all.map((e) => readChain(e.metadata));
    expect(chains.map((c) => c.kind)).toEqual(['link', 'link', 'link', 'link', 'link']);
  });

  it('keeps the caller metadata and replaces a chain field it brings along', async () => {
    const copied = { ...event('A'), metadata: { ...event('A').metadata, chain: { v: 1 } } };
    await store.appendToStream('s', [copied]);
    const [read] = await raw.readStream('s');
    expect(withoutChain(read.metadata)).toEqual(event('A').metadata);
    assertChained([read], secret);
  });

  it('hashes data as the log gives it back (Date → ISO string, undefined dropped)', async () => {
    await store.appendToStream('s', [
      event('A', { at: new Date('2025-02-03T04:05:06.000Z'), gone: undefined }),
    ]);
    const read = await raw.readAll();
    expect(read[0].data).toEqual({ at: '2025-02-03T04:05:06.000Z' });
    assertChained(read, secret);
  });

  it('chains and verifies data nested 3,500 deep (it made `arbor verify` overflow its stack)', async () => {
    const deep: unknown = JSON.parse('['.repeat(3_500) + ']'.repeat(3_500));
    await store.appendToStream('deep', [event('Deep', { deep })]);
    const all = await raw.readAll();
    assertChained(all, secret);
    expect(await verifyStore(raw, secret)).toMatchObject({ ok: true, events: 1, findings: [] });
  });

  it('reads pass through unchanged', async () => {
    await store.appendToStream('s', [event('A'), event('B')]);
    expect(await store.readStream('s')).toEqual(await raw.readStream('s'));
    expect(await store.readAll({ maxCount: 1 })).toEqual(await raw.readAll({ maxCount: 1 }));
    expect(await store.headPosition()).toBe(await raw.headPosition());
    expect(store.kind).toBe('sqlite');
  });

  it('a re-append of the same events at the same expected revision succeeds without writing', async () => {
    const batch = [event('A', { i: 1 }, randomUUID()), event('B', { i: 2 }, randomUUID())];
    const first = await store.appendToStream('s', batch, { expectedRevision: 'no_stream' });
    await store.appendToStream('s', [event('C')], { expectedRevision: 1n });
    const retry = await store.appendToStream('s', batch, { expectedRevision: 'no_stream' });
    expect(retry).toEqual(first);
    const again = await store.appendToStream('s', batch, { expectedRevision: 'no_stream' });
    expect(again).toEqual(first);
    const stored = await raw.readStream('s');
    expect(stored).toHaveLength(3);
    assertChained(stored, secret);
  });

  it('a retry computes the same chain as the original append', async () => {
    const batch = [event('A', { i: 1 }, randomUUID())];
    await store.appendToStream('s', [event('Z')], { expectedRevision: 'no_stream' });
    await store.appendToStream('s', batch, { expectedRevision: 0n });
    const original = (await raw.readStream('s'))[1].metadata.chain;
    // A fresh decorator (as after a restart) recomputes the retry from the stored revision 0.
    const seen: unknown[] = [];
    const spy: EventStore = {
      ...raw,
      appendToStream: (name, events, options) => {
        seen.push(events[0]?.metadata.chain);
        return raw.appendToStream(name, events, options);
      },
    };
    await withHashChain(spy, secret).appendToStream('s', batch, { expectedRevision: 0n });
    expect(seen).toEqual([original]);
    expect(await raw.readStream('s')).toHaveLength(2);
  });

  it('with any, re-appending stored ids succeeds without writing', async () => {
    const batch = [event('A', {}, randomUUID()), event('B', {}, randomUUID())];
    const first = await store.appendToStream('s', batch);
    await store.appendToStream('s', [event('C')]);
    expect(await store.appendToStream('s', batch)).toEqual(first);
    expect(await store.appendToStream('s', batch, { expectedRevision: 'stream_exists' })).toEqual(
      first,
    );
    expect(await raw.readStream('s')).toHaveLength(3);
    assertChained(await raw.readAll(), secret);
  });

  it('refuses an expectation the stream does not meet, with expected and actual', async () => {
    const missing = await errorOf(
      store.appendToStream('s', [event('A')], { expectedRevision: 'stream_exists' }),
    );
    expect(missing).toBeInstanceOf(WrongExpectedVersionError);
    expect(missing).toMatchObject({ expected: 'stream_exists', actual: 'no_stream' });
    await store.appendToStream('s', [event('A'), event('B')]);
    const ahead = await errorOf(store.appendToStream('s', [event('C')], { expectedRevision: 5n }));
    expect(ahead).toMatchObject({ expected: 5n, actual: 1n });
    const behind = await errorOf(store.appendToStream('s', [event('C')], { expectedRevision: 0n }));
    expect(behind).toBeInstanceOf(WrongExpectedVersionError);
    expect(behind).toMatchObject({ expected: 0n, actual: 1n });
    expect(await raw.readStream('s')).toHaveLength(2);
  });

  it('serializes concurrent appends to one stream, so the chain stays linear', async () => {
    await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        store.appendToStream(`s-${i % 3}`, [event('A', { i }), event('B', { i })]),
      ),
    );
    const all = await raw.readAll();
    expect(all).toHaveLength(60);
    assertChained(all, secret);
  });

  it('chains correctly when its cache forgets streams', async () => {
    const small = withHashChain(raw, secret, { cacheStreams: 1 });
    for (let i = 0; i < 12; i++) await small.appendToStream(`s-${i % 4}`, [event('A', { i })]);
    assertChained(await raw.readAll(), secret);
  });

  it('a writer on another connection (as another process) gets WrongExpectedVersion instead of breaking the chain', async () => {
    const other = log.open();
    try {
      const elsewhere = withHashChain(other, secret);
      await store.appendToStream('s', [event('A')], { expectedRevision: 'no_stream' });
      await elsewhere.appendToStream('s', [event('B')], { expectedRevision: 0n });
      // `store` still believes the stream ends at 0: an exact append there is refused...
      const stale = await errorOf(
        store.appendToStream('s', [event('C')], { expectedRevision: 0n }),
      );
      expect(stale).toMatchObject({ expected: 0n, actual: 1n });
      // ...and `any` is chained again on the revision the other writer left.
      await elsewhere.appendToStream('s', [event('D')]);
      await store.appendToStream('s', [event('E')]);
      await elsewhere.appendToStream('s', [event('F')], { expectedRevision: 'stream_exists' });
      await store.appendToStream('s', [event('G')], { expectedRevision: 4n });
      const stored = await raw.readStream('s');
      expect(stored.map((e) => e.type)).toEqual(['A', 'B', 'D', 'E', 'F', 'G']);
      assertChained(stored, secret);
    } finally {
      await other.close();
    }
  });

  it('never hands the store a chain from a stale head, even when a raw writer interleaves', async () => {
    await store.appendToStream('s', [event('A')]);
    // A writer that bypasses the decorator moves the stream behind its back.
    await raw.appendToStream('s', [event('X')], { expectedRevision: 0n });
    const moved = await errorOf(store.appendToStream('s', [event('B')], { expectedRevision: 0n }));
    expect(moved).toBeInstanceOf(WrongExpectedVersionError);
    await store.appendToStream('s', [event('C')], { expectedRevision: 1n });
    const stored = await raw.readStream('s');
    expect(stored.map((e) => e.type)).toEqual(['A', 'X', 'C']);
    // X has no chain, so C chains from null, as after pre-chain history.
    expect(readChain(stored[2].metadata)).toMatchObject({ kind: 'link', link: { prev: null } });
  });

  it('chains after events written before the chain existed', async () => {
    await raw.appendToStream('s', [event('Old1'), event('Old2')]);
    await store.appendToStream('s', [event('New')], { expectedRevision: 1n });
    const [, , added] = await raw.readStream('s');
    expect(readChain(added.metadata)).toMatchObject({ kind: 'link', link: { prev: null } });
    assertChained([added], secret);
  });

  it('an empty append only checks the expectation', async () => {
    expect(await store.appendToStream('s', [], { expectedRevision: 'no_stream' })).toEqual({
      nextExpectedRevision: -1n,
      position: -1n,
    });
    expect(await raw.headPosition()).toBeNull();
  });
});

describeEventStoreContract('sqlite + withHashChain', async () => {
  const log = tempLog();
  const raw = log.open();
  return {
    store: chainBlind(withHashChain(raw, secret)),
    cleanup: async () => {
      await raw.close();
      log.cleanup();
    },
  };
});
