import {
  cleanupPrefix,
  connectTestRedis,
  describeWithRedis,
  randomPrefix,
  TEST_REDIS_URL,
} from '../testing/redis';
import { type RedisClient } from './connection';
import { createRedisRateBuckets, type RedisRateBuckets } from './rate-buckets';

describeWithRedis('Redis rate buckets', () => {
  const prefix = randomPrefix('rate-buckets');
  // A slow refill (one token per 1000 s): no token comes back while the test runs.
  const limit = { ratePerSecond: 0.001, burst: 3 };
  let client: RedisClient;
  let buckets: RedisRateBuckets;
  beforeAll(async () => {
    client = await connectTestRedis();
    buckets = createRedisRateBuckets({
      target: { kind: 'node', url: TEST_REDIS_URL },
      prefix,
      timeoutMs: 5000,
      onError: () => undefined,
      onConnectFailed: () => undefined,
    });
    for (
      let i = 0;
      i < 100 &&
      !(await buckets.take('probe', limit, 0).then(
        () => true,
        () => false,
      ));
      i++
    ) {
      await new Promise((r) => setTimeout(r, 50));
    }
  });
  afterAll(async () => {
    await buckets.close();
    await cleanupPrefix(client, prefix);
    await client.close();
  });

  it('takes while tokens last, then refuses without taking', async () => {
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await buckets.take('t1', limit, 1));
    expect(answers.map((a) => a.allowed)).toEqual([true, true, true, false]);
    expect(answers[3].tokens).toBeCloseTo(0, 2);
  });

  it('a charge goes below zero, and the next take is refused; other buckets are untouched', async () => {
    await buckets.charge('t2', limit, 5);
    const next = await buckets.take('t2', limit, 1);
    expect(next.allowed).toBe(false);
    expect(next.tokens).toBeCloseTo(-2, 2);
    expect((await buckets.take('t3', limit, 1)).allowed).toBe(true);
    expect(await client.exists(`${prefix}:rl:{t2}`)).toBe(1);
  });
});
