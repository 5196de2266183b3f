/**
 * The scaled shape over EventStoreDB's gRPC wire, in `npm test`: the EventStoreDB wire server
 * (libs/event-store/src/esdb/testing/, a test double of EventStoreDB) runs as a process of its
 * own, and every replica, worker and rebuild check is given EVENTSTORE_CONNECTION_STRING at it,
 * so the log and the key store are EventStoreDB's through the real client. Then the same suites
 * as on the SQLite log run unchanged: the every-route walk (scaled-routes.e2e-spec.ts) and the
 * replicas/workers suite with the kill -9 of the worker mid-stream (scaled.e2e-spec.ts).
 */
import { randomBytes } from 'node:crypto';
import { startWireServerProcess, type WireServerProcess } from './support/esdb-wire';

let wire: WireServerProcess | null = null;
const saved = {
  EVENTSTORE_CONNECTION_STRING: process.env.EVENTSTORE_CONNECTION_STRING,
  ARBOR_MASTER_KEY: process.env.ARBOR_MASTER_KEY,
};

beforeAll(async () => {
  wire = await startWireServerProcess();
  // Read when each suite spawns its processes (they inherit process.env) and by its checks.
  process.env.EVENTSTORE_CONNECTION_STRING = wire.connectionString;
  // One key store on one server: every process of both suites has the same master key (each
  // suite's data directory would otherwise make its own, which the server's check refuses).
  process.env.ARBOR_MASTER_KEY = randomBytes(32).toString('hex');
}, 120_000);

afterAll(async () => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await wire?.kill();
});

// The suites register their describe blocks here, after this file's beforeAll.
// eslint-disable-next-line @typescript-eslint/no-require-imports
require('./scaled-routes.e2e-spec');
// eslint-disable-next-line @typescript-eslint/no-require-imports
require('./scaled.e2e-spec');
