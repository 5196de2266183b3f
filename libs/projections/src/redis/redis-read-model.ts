import { type ReadModelQueries, type ReadModelSink } from '../read-model-port';
import { createRedisQueries } from './queries';
import { createRedisSink, type RedisReadModelOptions } from './writer';

export * from './keys';
export * from './scripts';
export * from './generations';
export * from './writer';
export * from './queries';

/** One generation's Redis read models: the projector's sink and the application's queries. */
export const createRedisReadModel = (
  options: RedisReadModelOptions,
): { queries: ReadModelQueries; sink: ReadModelSink } => ({
  queries: createRedisQueries(options),
  sink: createRedisSink(options),
});
