/**
 * The hash chain over EventStoreDB's wire: `withHashChain` on the EventStoreDB adapter, through
 * the real client over HTTP/2 to the local wire server (a test double, not a live server). The
 * whole event-store contract, then the verifier over what the server holds.
 */
import { randomBytes } from 'node:crypto';
import { openEventStoreDbStore } from '@arbor/event-store/esdb';
import { EventStoreWireServer } from '@arbor/event-store/esdb/testing/wire-server';
import { describeEventStoreContract } from '@arbor/event-store/testing/event-store-contract';
import { withHashChain } from './hash-chain-store';
import { chainBlind } from './testing/chain-blind';
import { assertChained } from './testing/temp-store';

const secret = Buffer.alloc(32, 42);
let server: EventStoreWireServer;
beforeAll(async () => {
  server = await EventStoreWireServer.start();
});
afterAll(() => server.stop());

describeEventStoreContract('eventstoredb wire server + withHashChain', async () => {
  const raw = openEventStoreDbStore(server.connectionString);
  return { store: chainBlind(withHashChain(raw, secret)), cleanup: () => raw.close() };
});

describe('withHashChain over the wire server', () => {
  it('links every event of a stream to its predecessor, as the server stores them', async () => {
    const raw = openEventStoreDbStore(server.connectionString);
    const store = withHashChain(raw, secret);
    const stream = `chain-${randomBytes(5).toString('hex')}`;
    const meta = { tenantId: 't', actor: 'test', timestamp: '2026-01-01T00:00:00.000Z' };
    await store.appendToStream(stream, [{ type: 'A', data: { i: 0 }, metadata: meta }], {
      expectedRevision: 'no_stream',
    });
    await store.appendToStream(stream, [
      { type: 'B', data: { i: 1 }, metadata: meta },
      { type: 'C', data: { i: 2 }, metadata: meta },
    ]);
    const stored = await raw.readStream(stream);
    expect(stored).toHaveLength(3);
    expect(() => assertChained(stored, secret)).not.toThrow();
    await raw.close();
  });
});
