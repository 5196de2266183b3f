/**
 * Redis unreachable: the rate limit fails over to the process's own bucket (same limit, same
 * arithmetic), not open, and counts each such call in arbor_redis_errors_total{client="rate-limit"}.
 * Against a redis-server of its own (free port), killed mid-test (the shared one is not touched),
 * and a real `arbor serve` process (closing an in-process app waits for its Redis).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ADMIN_KEY } from './support/harness';
import {
  call,
  describeWithRedisServer,
  type RedisServer,
  type Replica,
  spawnReplica,
  startRedisServer,
} from './support/scaled';

const metric = (text: string, name: string, labels: Record<string, string>): number =>
  text
    .split('\n')
    .filter((l) => l.startsWith(`${name}{`))
    .filter((l) => Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)))
    .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);

describeWithRedisServer('rate limits with Redis unreachable', () => {
  let redis: RedisServer;
  let server: Replica;
  let dir: string;
  beforeAll(async () => {
    redis = await startRedisServer();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-rl-down-'));
    server = await spawnReplica(
      dir,
      { REDIS_URL: redis.url, ARBOR_REDIS_PREFIX: 'arbor-test:rl-down' },
      true,
    );
  }, 120_000);
  afterAll(async () => {
    await server?.kill('SIGKILL');
    await redis?.kill();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it("the process's own bucket decides (fail over, not open) and the Redis errors are counted", async () => {
    const admin = (method: string, route: string, body?: unknown) =>
      call(server.url, method, route, ADMIN_KEY, body);
    // Buckets of 2 tokens that do not refill within the test (one token per 1,000 s).
    const limit = { limit: { ratePerSecond: 0.001, burst: 2 } };
    const a = (await admin('POST', '/v1/tenants', { name: 'a' })).body;
    const b = (await admin('POST', '/v1/tenants', { name: 'b' })).body;
    expect((await admin('PUT', `/v1/tenants/${a.id}/limits`, limit)).status).toBe(200);
    expect((await admin('PUT', `/v1/tenants/${b.id}/limits`, limit)).status).toBe(200);
    const statuses = async (key: string, n: number) => {
      const out: number[] = [];
      for (let i = 0; i < n; i++)
        out.push((await call(server.url, 'GET', '/v1/conversations', key)).status);
      return out;
    };
    // Redis up: the Redis bucket decides.
    expect(await statuses(a.apiKey, 3)).toEqual([200, 200, 429]);
    expect(redis.cli('--scan', '--pattern', 'arbor-test:rl-down:rl:*').trim()).not.toBe('');
    // Take one of b's two tokens in Redis: the local bucket does not know of it.
    expect(await statuses(b.apiKey, 1)).toEqual([200]);

    await redis.kill();
    const scrape = async () => (await admin('GET', '/metrics')).text;
    const errors0 = metric(await scrape(), 'arbor_redis_errors_total', { client: 'rate-limit' });
    // Redis down: b's requests are decided by this process's bucket (full: 2 tokens), so two
    // more are admitted (reads answer 503: the read models are in Redis too), the next refused.
    const down = await statuses(b.apiKey, 3);
    expect(down.slice(0, 2).every((s) => s !== 429)).toBe(true);
    expect(down[2]).toBe(429);
    const errors1 = metric(await scrape(), 'arbor_redis_errors_total', { client: 'rate-limit' });
    expect(errors1).toBeGreaterThan(errors0);
    // a stays refused: its bucket was empty when Redis went (remembered by this process).
    expect(await statuses(a.apiKey, 1)).toEqual([429]);
  }, 60_000);
});
