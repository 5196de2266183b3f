import {
  type ArborConfig,
  createEventStore,
  createHeadSignal,
  createKeyStore,
  readModelOptions,
  withContentEncryption,
} from '@arbor/application';
import { openReadModelBackend } from '@arbor/projections';
import { CliError } from './errors';

/**
 * `arbor project`: one projector worker and nothing else (no HTTP), over the same read-model
 * backend as `arbor serve`. It takes its share of the partitions by lease until SIGTERM/SIGINT,
 * then gives its leases back; `kill -9` leaves them to expire (ARBOR_LEASE_MS).
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
  const say = (line: string) => log(`arbor project: ${line}`);
  const backend = await openReadModelBackend({
    ...readModelOptions(config, store, { error: say, warn: say, log: say, debug: () => undefined }),
    projector: true,
    headSignal: signal,
  });
  const { partitions } = await backend.progress();
  log(
    `arbor project: worker ${config.workerId} in the pool (${partitions.length} partitions, lease ${config.leaseMs} ms, prefix ${config.redisPrefix})`,
  );
  await new Promise<void>((resolve) => {
    process.once('SIGTERM', resolve);
    process.once('SIGINT', resolve);
  });
  await backend.close();
  await store.close();
  return 0;
};
