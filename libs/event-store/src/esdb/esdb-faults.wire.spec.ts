/**
 * Faults the network brings, through the real client over HTTP/2 to the local wire server
 * (`testing/wire-server.ts`): a slow server (deadlines), an append whose reply is lost after the
 * server applied it (the re-append with the same ids answers the original position), and an
 * append over the server's MaxAppendSize (a clear error, nothing written). The server dropped
 * under a projector is in libs/projections/src/projector.wire.spec.ts.
 */
import { randomBytes } from 'node:crypto';
import { InvalidEventError, StoreUnavailableError, StreamNotFoundError } from '../errors';
import { type EventData } from '../types';
import { openEventStoreDbStore } from './esdb-event-store';
import { EventStoreWireServer } from './testing/wire-server';

const meta = { tenantId: 't', actor: 'faults', timestamp: '2026-01-01T00:00:00.000Z' };
const event = (i: number, data: unknown = { i }): EventData => ({
  type: 'F',
  data,
  metadata: meta,
});
const fresh = () => `f-${randomBytes(5).toString('hex')}`;

let server: EventStoreWireServer;
beforeEach(async () => {
  server = await EventStoreWireServer.start();
});
afterEach(() => server.stop());

describe.each([
  ['BatchAppend', true],
  ['Append', false],
])('over the wire server (%s)', (_path, batchAppend) => {
  beforeEach(async () => {
    await server.stop();
    server = await EventStoreWireServer.start({ batchAppend });
  });

  it('a slow server fails reads and appends at the deadline instead of waiting', async () => {
    const store = openEventStoreDbStore(server.connectionString, { deadlineMs: 300 });
    const stream = fresh();
    await store.appendToStream(stream, [event(0)]);
    server.faults.delayMs = 5_000;
    await expect(store.readStream(stream)).rejects.toThrow(/deadline/i);
    await expect(store.readAll({ maxCount: 1 })).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.appendToStream(stream, [event(1)])).rejects.toThrow(/deadline/i);
    server.faults.delayMs = 0;
    await store.close();
  });

  it('an append whose reply is lost after the server applied it answers the original position, written once', async () => {
    const store = openEventStoreDbStore(server.connectionString, { deadlineMs: 500 });
    const stream = fresh();
    await store.appendToStream(stream, [event(0)], { expectedRevision: 'no_stream' });
    server.faults.loseAppendReplies = 1; // applied, then the reply never comes
    const result = await store.appendToStream(stream, [event(1), event(2)], {
      expectedRevision: 0n,
    });
    const read = await store.readStream(stream);
    expect(read.map((e) => (e.data as { i: number }).i)).toEqual([0, 1, 2]);
    expect(result).toEqual({ nextExpectedRevision: 2n, position: read[2].position });
    await store.close();
  });

  it('an append over MaxAppendSize is refused clearly and writes nothing', async () => {
    await server.stop();
    server = await EventStoreWireServer.start({ batchAppend, maxAppendSize: 64 * 1024 });
    const store = openEventStoreDbStore(server.connectionString);
    const stream = fresh();
    const big = 'x'.repeat(40 * 1024);
    const error = await store.appendToStream(stream, [event(0, { big }), event(1, { big })]).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(InvalidEventError);
    expect(String((error as Error).message)).toMatch(/65536/);
    await expect(store.readStream(stream)).rejects.toBeInstanceOf(StreamNotFoundError);
    await store.close();
  });
});
