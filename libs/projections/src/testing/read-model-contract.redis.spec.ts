import { type RedisClient } from '../redis/connection';
import { createRedisReadModel } from '../redis/redis-read-model';
import { readModelContract } from './read-model-contract';
import { cleanupPrefix, connectTestRedis, describeWithRedis, randomPrefix } from './redis';

describeWithRedis('Redis read models', () => {
  const prefix = randomPrefix('contract');
  let client: RedisClient;
  let n = 0;
  beforeAll(async () => {
    client = await connectTestRedis();
  });
  afterAll(async () => {
    await cleanupPrefix(client, prefix);
    await client.close();
  });

  readModelContract('Redis', {
    runs: 25,
    // A generation of its own per case: each case starts empty, under the file's prefix.
    open: async () => createRedisReadModel({ client, prefix, generation: `g${++n}` }),
  });

  it('left keys only under its own prefix, and removes them all', async () => {
    const rm = createRedisReadModel({ client, prefix, generation: 'probe' });
    expect(await rm.queries.getConversation('t', 'c')).toBeNull();
    expect(await cleanupPrefix(client, prefix)).toBeGreaterThan(0);
    expect(await cleanupPrefix(client, prefix)).toBe(0);
  });
});
