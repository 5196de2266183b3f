/**
 * The EventStoreDB key store's own logic, against an in-memory model of the server operations it
 * uses (testing/memory-key-streams.ts): the shared key-store contract, then what only this store
 * does (the master-key check, finishing an interrupted erasure, system-stream names). The live
 * server run is esdb-key-store.esdb.spec.ts (not run here: no EventStoreDB on this machine).
 */
import { randomBytes } from 'node:crypto';
import { ContentErasedError, KeyUnwrapError } from '../crypto/key-store';
import { describeKeyStoreContract } from '../testing/key-store-contract';
import { StoreUnavailableError } from '../errors';
import { openEventStoreDbKeyStore, openKeyStreamsKeyStore } from './esdb-key-store';
import { memoryKeyStreams, memoryServer } from './testing/memory-key-streams';

describeKeyStoreContract('eventstoredb key streams (in-memory model of the server)', async () => {
  const server = memoryServer();
  return {
    open: (masterKey) => openKeyStreamsKeyStore(memoryKeyStreams(server), masterKey),
    storedBytes: async () =>
      Buffer.concat([...server.streams.keys()].map((s) => server.bytesOf(s))),
    cleanup: async () => undefined,
  };
});

describe('EventStoreDB key store (in-memory model of the server)', () => {
  const record = { erasedAt: '2026-01-01T00:00:00.000Z', actor: 'test', reason: 'r' };

  it('keeps everything in $-streams of its namespace: a key stream, a record stream, two indexes, the master check', async () => {
    const server = memoryServer();
    const keys = openKeyStreamsKeyStore(memoryKeyStreams(server), randomBytes(32), {
      namespace: 'ns1',
    });
    await keys.keyFor('conv-t1.c1');
    await keys.erase('conv-t1.c1', record);
    expect([...server.streams.keys()].sort()).toEqual([
      '$ns1-erased-conv-t1.c1',
      '$ns1-erasures',
      '$ns1-keys',
      '$ns1-master',
    ]);
    expect([...server.tombstoned]).toEqual(['$ns1-key-conv-t1.c1']);
    await keys.close();
  });

  it('racing creations store one wrapped key (expected revision "no stream"), not one each', async () => {
    const server = memoryServer();
    const master = randomBytes(32);
    const [a, b] = [0, 1].map(() => openKeyStreamsKeyStore(memoryKeyStreams(server), master));
    const [ka, kb] = await Promise.all([a.keyFor('conv-t1.c1'), b.keyFor('conv-t1.c1')]);
    expect(ka.equals(kb)).toBe(true);
    expect(server.streams.get('$arbor-key-conv-t1.c1')).toHaveLength(1);
    await a.close();
    await b.close();
  });

  it('a process with another master key fails on its first call, before it creates any key', async () => {
    const server = memoryServer();
    const a = openKeyStreamsKeyStore(memoryKeyStreams(server), randomBytes(32));
    await a.keyFor('conv-t1.c1');
    const b = openKeyStreamsKeyStore(memoryKeyStreams(server), randomBytes(32));
    await expect(b.keyFor('conv-t1.c2')).rejects.toBeInstanceOf(KeyUnwrapError);
    await expect(b.erasure('conv-t1.c1')).rejects.toThrow(/master key/);
    expect(server.streams.has('$arbor-key-conv-t1.c2')).toBe(false);
    await a.close();
    await b.close();
  });

  it('finishes an erasure interrupted between its record and its tombstone on the next lookup', async () => {
    const server = memoryServer();
    const master = randomBytes(32);
    const a = openKeyStreamsKeyStore(memoryKeyStreams(server), master);
    await a.keyFor('conv-t1.c1');
    // What a crash after the record leaves: the record, and the key stream still there.
    server.streams.set('$arbor-erased-conv-t1.c1', [{ stream: 'conv-t1.c1', ...record }]);
    const b = openKeyStreamsKeyStore(memoryKeyStreams(server), master);
    expect(await b.existingKey('conv-t1.c1')).toBe('erased');
    expect(server.tombstoned.has('$arbor-key-conv-t1.c1')).toBe(true);
    await expect(a.keyFor('conv-t1.c1')).rejects.toBeInstanceOf(ContentErasedError);
    expect(await a.liveKeys()).toBe(0);
    await a.close();
    await b.close();
  });

  it('rejects a namespace that would not make a plain stream name', () => {
    expect(() =>
      openKeyStreamsKeyStore(memoryKeyStreams(memoryServer()), randomBytes(32), {
        namespace: 'a-b',
      }),
    ).toThrow(/namespace/);
  });
});

describe('openEventStoreDbKeyStore without a reachable server (the real client)', () => {
  it('reports every operation as StoreUnavailableError', async () => {
    const keys = openEventStoreDbKeyStore('esdb://127.0.0.1:1?tls=false', randomBytes(32));
    await expect(keys.keyFor('conv-t1.c1')).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(keys.existingKey('conv-t1.c1')).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(keys.erasure('conv-t1.c1')).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(
      keys.erase('conv-t1.c1', { erasedAt: '', actor: 'a', reason: 'r' }),
    ).rejects.toBeInstanceOf(StoreUnavailableError);
    await keys.close();
  });
});
