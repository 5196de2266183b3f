import {
  type ArborConfig,
  createEventStore,
  createHeadSignal,
  createKeyStore,
  withContentEncryption,
  PROJECTION_FILTER,
  PROJECTIONS,
} from '@arbor/application';
import {
  agreePartitions,
  connectRedis,
  createProjectorPool,
  headChannel,
} from '@arbor/projections';
import { CliError } from './errors';

/**
 * `arbor project`: one projector worker and nothing else (no HTTP). It joins the pool in Redis
 * (`REDIS_URL` or `REDIS_CLUSTER_URLS`, `ARBOR_REDIS_PREFIX`), takes its fair share of the partitions by lease, projects
 * them from the shared log until SIGTERM/SIGINT, then gives its leases back. `kill -9` leaves
 * them to expire (ARBOR_LEASE_MS), after which the other workers take them over.
 */
export const projectCommand = async (
  config: ArborConfig,
  log: (line: string) => void,
): Promise<number> => {
  if (config.redis === null) {
    throw new CliError(
      'usage',
      'arbor project needs REDIS_URL or REDIS_CLUSTER_URLS (the read models it writes)',
      2,
    );
  }
  const signal = createHeadSignal();
  // Read through the content keys: the read models hold the messages, not their sealed boxes.
  const store = withContentEncryption(
    createEventStore(config, signal),
    createKeyStore(config),
    config,
  );
  const client = await connectRedis(config.redis);
  const subscriber = await client.subscriber();
  await subscriber.subscribe(headChannel(config.redisPrefix), () => signal.wake());
  const partitions = await agreePartitions(client, config.redisPrefix, config.partitions);
  const pool = createProjectorPool({
    client,
    prefix: config.redisPrefix,
    partitions,
    leaseMs: config.leaseMs,
    workerId: config.workerId,
    store,
    set: { projections: PROJECTIONS, filter: PROJECTION_FILTER },
    onError: (e) => log(`arbor project: ${String(e)}`),
    onLeaseChange: (change, p) => log(`arbor project: partition ${p} lease ${change}`),
  });
  await pool.start();
  log(
    `arbor project: worker ${config.workerId} in the pool (${partitions} partitions, lease ${config.leaseMs} ms, prefix ${config.redisPrefix})`,
  );
  await new Promise<void>((resolve) => {
    process.once('SIGTERM', resolve);
    process.once('SIGINT', resolve);
  });
  await pool.stop();
  await subscriber.close().catch(() => undefined);
  await client.close().catch(() => undefined);
  await store.close();
  return 0;
};
