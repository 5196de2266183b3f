import { type ReadModelBackend, type ReadModelBackendOptions } from './port';
import { openRedisBackend } from './redis-backend';
import { openSqliteBackend } from './sqlite-backend';

/** The read models the server and the CLI open: Redis when configured, else SQLite. */
export const openReadModelBackend = (
  options: ReadModelBackendOptions,
): Promise<ReadModelBackend> =>
  options.redis !== null
    ? openRedisBackend({ ...options, redis: options.redis })
    : openSqliteBackend(options);
