/**
 * The adapter's behaviour that needs no EventStoreDB: validation before any call, error mapping
 * when the server cannot be reached (port 1 on localhost refuses connections), and closing.
 * The EventStoreDB semantics themselves are checked by the contract in `*.esdb.spec.ts`.
 */
import { InvalidEventError, InvalidStreamNameError, StoreUnavailableError } from '../errors';
import { type EventMetadata } from '../types';
import { openEventStoreDbStore } from './esdb-event-store';

const UNREACHABLE = 'esdb://127.0.0.1:1?tls=false';

const metadata: EventMetadata = { tenantId: 't', actor: 'a', timestamp: '2026-01-01T00:00:00Z' };

describe('openEventStoreDbStore without a reachable server', () => {
  const store = openEventStoreDbStore(UNREACHABLE);
  afterAll(() => store.close());

  it('is the eventstoredb adapter', () => {
    expect(store.kind).toBe('eventstoredb');
  });

  it('reports every operation as StoreUnavailableError', async () => {
    const event = { type: 'A', data: {}, metadata };
    await expect(store.appendToStream('conv-t.c', [event])).rejects.toBeInstanceOf(
      StoreUnavailableError,
    );
    await expect(store.readStream('conv-t.c')).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.readAll()).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(
      store.readAll({ direction: 'backwards', fromPosition: 10n }),
    ).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.headPosition()).rejects.toBeInstanceOf(StoreUnavailableError);
  });

  it('ends a subscription iteration with StoreUnavailableError', async () => {
    const subscription = store.subscribeToAll({ filter: { streamPrefixes: ['conv-'] } });
    await expect(subscription[Symbol.asyncIterator]().next()).rejects.toBeInstanceOf(
      StoreUnavailableError,
    );
    await subscription.unsubscribe();
  });

  it('validates streams and events before calling the server', async () => {
    await expect(
      store.appendToStream('$system', [{ type: 'A', data: {}, metadata }]),
    ).rejects.toBeInstanceOf(InvalidStreamNameError);
    await expect(
      store.appendToStream('conv-t.c', [{ id: 'nope', type: 'A', data: {}, metadata }]),
    ).rejects.toBeInstanceOf(InvalidEventError);
    await expect(store.readStream('')).rejects.toBeInstanceOf(InvalidStreamNameError);
  });

  it('answers reads that cannot return anything without the server', async () => {
    expect(await store.readAll({ maxCount: 0 })).toEqual([]);
    expect(await store.readAll({ direction: 'backwards', fromPosition: -1n })).toEqual([]);
  });
});

describe('closing the EventStoreDB store', () => {
  it('refuses operations after close, and close is idempotent', async () => {
    const store = openEventStoreDbStore(UNREACHABLE);
    const subscription = store.subscribeToAll();
    await store.close();
    await store.close();
    await expect(store.readAll()).rejects.toThrow(/closed/);
    await expect(store.headPosition()).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(() => store.subscribeToAll()).toThrow(StoreUnavailableError);
    const next = await subscription[Symbol.asyncIterator]().next();
    expect(next.done).toBe(true);
  });

  it('refuses a malformed connection string', () => {
    expect(() => openEventStoreDbStore('not a connection string')).toThrow(StoreUnavailableError);
  });
});
