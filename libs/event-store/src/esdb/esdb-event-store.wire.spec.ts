/**
 * The shared event-store contract through the real `EventStoreDBClient` over HTTP/2 to the local
 * wire server (`testing/wire-server.ts`), in `npm test`. Not a live EventStoreDB: that run is
 * `esdb-event-store.esdb.spec.ts` under `npm run test:esdb`.
 */
import { describeEventStoreContract } from '../testing/event-store-contract';
import { openEventStoreDbStore } from './esdb-event-store';
import { EventStoreWireServer } from './testing/wire-server';

let server: EventStoreWireServer;
beforeAll(async () => {
  server = await EventStoreWireServer.start();
});
afterAll(() => server.stop());

describeEventStoreContract('eventstoredb client over the wire server (BatchAppend)', async () => {
  const store = openEventStoreDbStore(server.connectionString);
  return { store, cleanup: () => store.close() };
});

describe('the Append path (a server without BatchAppend)', () => {
  let unbatched: EventStoreWireServer;
  beforeAll(async () => {
    unbatched = await EventStoreWireServer.start({ batchAppend: false });
  });
  afterAll(() => unbatched.stop());

  describeEventStoreContract('eventstoredb client over the wire server (Append)', async () => {
    const store = openEventStoreDbStore(unbatched.connectionString);
    return { store, cleanup: () => store.close() };
  });
});
