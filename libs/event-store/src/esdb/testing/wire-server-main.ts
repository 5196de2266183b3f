/**
 * The EventStoreDB wire server as a process of its own, for the scaled-shape tests (replicas and
 * workers reach it over the network as they would a real server). A test double: never started
 * by `npm start`. Listens on 127.0.0.1 (ESDB_WIRE_PORT, default a free port), prints its
 * connection string, and stops on SIGTERM/SIGINT.
 *
 *   node -r @swc-node/register libs/event-store/src/esdb/testing/wire-server-main.ts
 */
import { EventStoreWireServer } from './wire-server';

const main = async (): Promise<void> => {
  const port = Number(process.env.ESDB_WIRE_PORT ?? '0');
  const server = await EventStoreWireServer.start({}, Number.isInteger(port) ? port : 0);
  process.stdout.write(`esdb wire server listening: ${server.connectionString}\n`);
  const stop = () => {
    void server.stop().then(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
};

void main();
