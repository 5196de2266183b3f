/**
 * The shared event-store contract against a LIVE EventStoreDB. Runs only in `npm run test:esdb`
 * (jest project `esdb`), and only when EVENTSTORE_CONNECTION_STRING is set, e.g.
 *
 *   docker compose -f docker/docker-compose.yml up -d eventstore
 *   EVENTSTORE_CONNECTION_STRING='esdb://localhost:2113?tls=false' npm run test:esdb
 *
 * Without the variable the run reports one SKIPPED test naming the reason; it does not pass as if
 * the adapter had been checked.
 */
import { describeEventStoreContract } from '../testing/event-store-contract';
import { openEventStoreDbStore } from './esdb-event-store';

const connectionString = process.env.EVENTSTORE_CONNECTION_STRING?.trim();

if (connectionString) {
  describeEventStoreContract(`eventstoredb (${connectionString})`, async () => {
    const store = openEventStoreDbStore(connectionString);
    return { store, cleanup: () => store.close() };
  });
} else {
  const reason =
    'SKIPPED: EVENTSTORE_CONNECTION_STRING is not set, so the EventStoreDB adapter was NOT ' +
    'checked. Start a server (docker compose -f docker/docker-compose.yml up -d eventstore) and ' +
    "run EVENTSTORE_CONNECTION_STRING='esdb://localhost:2113?tls=false' npm run test:esdb";
  console.warn(reason);
  describe('EventStore contract: eventstoredb', () => {
    it.skip(reason, () => undefined);
  });
}
