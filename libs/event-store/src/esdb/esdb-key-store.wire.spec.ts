/**
 * The key-store contract and the erasure path through the real `EventStoreDBClient` over HTTP/2
 * to the local wire server (`testing/wire-server.ts`), in `npm test`. Not a live EventStoreDB:
 * that run is `esdb-key-store.esdb.spec.ts` under `npm run test:esdb`.
 */
import { randomBytes } from 'node:crypto';
import { ERASED } from '../crypto/content';
import { ContentErasedError } from '../crypto/key-store';
import { withContentKeys } from '../crypto/sealed-store';
import { describeKeyStoreContract } from '../testing/key-store-contract';
import { openEventStoreDbStore } from './esdb-event-store';
import { openEventStoreDbKeyStore } from './esdb-key-store';
import { EventStoreWireServer } from './testing/wire-server';

let server: EventStoreWireServer;
beforeAll(async () => {
  server = await EventStoreWireServer.start();
});
afterAll(() => server.stop());

/** Every byte the server holds for `stream` (data and metadata of its events). */
const serverBytes = (stream?: string): Buffer =>
  Buffer.concat(
    server.log.all
      .filter((e) => stream === undefined || e.stream === stream)
      .flatMap((e) => [Buffer.from(e.data), Buffer.from(e.metadata)]),
  );

describeKeyStoreContract('eventstoredb client over the wire server', async () => {
  const namespace = `k${randomBytes(6).toString('hex')}`;
  return {
    open: (masterKey) =>
      openEventStoreDbKeyStore(server.connectionString, masterKey, { namespace }),
    storedBytes: async (stream) => serverBytes(`$${namespace}-key-${stream}`),
    cleanup: async () => undefined,
  };
});

describe('erasure over the wire server (sealed log + key store, both on EventStoreDB)', () => {
  const meta = { tenantId: 't1', actor: 'test', timestamp: '2026-01-01T00:00:00.000Z' };
  const MARKER = `zebra-${randomBytes(4).toString('hex')}`;
  const message = (id: string, text: string) => ({
    message: {
      id,
      parentId: null,
      role: 'user',
      content: [{ type: 'text', text }],
      turnId: 'turn1',
      createdAt: meta.timestamp,
    },
  });

  it('seals content on the server, and after erasure leaves structure only and no key', async () => {
    const namespace = `e${randomBytes(6).toString('hex')}`;
    const keys = openEventStoreDbKeyStore(server.connectionString, randomBytes(32), { namespace });
    const raw = openEventStoreDbStore(server.connectionString);
    const store = withContentKeys(raw, keys);
    const stream = `conv-t1.c${randomBytes(4).toString('hex')}`;
    await store.appendToStream(
      stream,
      [{ type: 'MessageAppended', data: message('m1', MARKER), metadata: meta }],
      { expectedRevision: 'no_stream' },
    );
    expect(JSON.stringify((await store.readStream(stream))[0].data)).toContain(MARKER);
    // The server never holds the content in clear.
    expect(serverBytes().includes(Buffer.from(MARKER))).toBe(false);
    const wrapped = Buffer.from(
      (
        JSON.parse(
          Buffer.from(
            server.log.all.find((e) => e.stream === `$${namespace}-key-${stream}`)!.data,
          ).toString(),
        ) as { wrapped: string }
      ).wrapped,
    );

    expect(
      await keys.erase(stream, { erasedAt: meta.timestamp, actor: 'test', reason: 'gdpr' }),
    ).toBe(true);
    expect(
      await keys.erase(stream, { erasedAt: meta.timestamp, actor: 'test', reason: 'again' }),
    ).toBe(false);

    const [after] = await store.readStream(stream);
    expect(JSON.stringify(after.data)).not.toContain(MARKER);
    expect(JSON.stringify(after.data)).toContain(ERASED);
    await expect(
      store.appendToStream(
        stream,
        [{ type: 'MessageAppended', data: message('m2', 'y'), metadata: meta }],
        { expectedRevision: 0n },
      ),
    ).rejects.toBeInstanceOf(ContentErasedError);
    // The key stream is tombstoned: the server answers StreamDeleted and holds no key event.
    expect(server.log.stream(`$${namespace}-key-${stream}`)).toBe('deleted');
    expect((await keys.erasure(stream))?.reason).toBe('gdpr');
    // Another process sees the erasure on its first lookup.
    const other = openEventStoreDbKeyStore(server.connectionString, Buffer.alloc(32), {
      namespace,
    });
    await expect(other.existingKey(stream)).rejects.toThrow();
    await other.close();
    await store.close();
    await keys.close();
    expect(wrapped.length).toBeGreaterThan(0);
  });
});
