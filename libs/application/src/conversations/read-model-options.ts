import { type EventStore } from '@arbor/event-store';
import { type BackendLog, type ReadModelBackendOptions } from '@arbor/projections';
import { type ArborConfig } from '../config/config';

export const readModelOptions = (
  config: ArborConfig,
  store: EventStore,
  log: BackendLog,
): ReadModelBackendOptions => ({
  store,
  dataDir: config.dataDir,
  redis: config.redis,
  redisPrefix: config.redisPrefix,
  partitions: config.partitions,
  leaseMs: config.leaseMs,
  workerId: config.workerId,
  projector: config.projector,
  checkpointIntervalMs: config.checkpointIntervalMs,
  branchCacheMiB: config.branchCacheMiB,
  log: {
    error: (l) => log.error(l),
    warn: (l) => log.warn(l),
    log: (l) => log.log(l),
    debug: (l) => log.debug(l),
  },
});
