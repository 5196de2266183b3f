/**
 * The key-store contract against a LIVE EventStoreDB. Runs only in `npm run test:esdb` (jest
 * project `esdb`), and only when EVENTSTORE_CONNECTION_STRING is set. Each run uses a namespace
 * of its own (`$k<random>-…` streams), so runs and parallel suites never see each other's keys.
 * NOT run on the machines Arbor is developed on (no EventStoreDB there).
 */
import { randomBytes } from 'node:crypto';
import { EventStoreDBClient, FORWARDS, START } from '@eventstore/db-client';
import { describeKeyStoreContract } from '../testing/key-store-contract';
import { openEventStoreDbKeyStore } from './esdb-key-store';

const connectionString = process.env.EVENTSTORE_CONNECTION_STRING?.trim();

if (connectionString) {
  describeKeyStoreContract(`eventstoredb (${connectionString})`, async () => {
    const namespace = `k${randomBytes(6).toString('hex')}`;
    const peek = EventStoreDBClient.connectionString(connectionString);
    return {
      open: (masterKey) => openEventStoreDbKeyStore(connectionString, masterKey, { namespace }),
      storedBytes: async (stream) => {
        const chunks: Buffer[] = [];
        for await (const e of peek.readStream(`$${namespace}-key-${stream}`, {
          direction: FORWARDS,
          fromRevision: START,
        })) {
          chunks.push(Buffer.from(JSON.stringify(e.event?.data ?? null), 'utf8'));
        }
        return Buffer.concat(chunks);
      },
      cleanup: () => peek.dispose(),
    };
  });
} else {
  const reason =
    'SKIPPED: EVENTSTORE_CONNECTION_STRING is not set, so the EventStoreDB key store was NOT ' +
    'checked. Start a server (docker compose -f docker/docker-compose.yml up -d eventstore) and ' +
    "run EVENTSTORE_CONNECTION_STRING='esdb://localhost:2113?tls=false' npm run test:esdb";
  console.warn(reason);
  describe('KeyStore contract: eventstoredb', () => {
    it.skip(reason, () => undefined);
  });
}
