/** Test helpers for suites that need a Redis: probe, a random key prefix, cleanup by prefix. */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { connectRedis, type RedisClient } from '../redis/connection';
import { unlinkMatching } from '../redis/redis-read-model';

export const TEST_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

const PROBE = `
const net = require('node:net');
const u = new URL(process.argv[1]);
const s = net.connect({ host: u.hostname, port: Number(u.port || 6379) });
s.setTimeout(5000, () => process.exit(1));
s.on('error', () => process.exit(1));
s.on('connect', () => s.write('PING\\r\\n'));
s.on('data', (d) => process.exit(String(d).startsWith('+PONG') || String(d).startsWith('-NOAUTH') ? 0 : 1));
`;

/** Synchronous, so a suite can decide to skip at load; generous, as node starts slowly under load. */
export const redisAnswers = (url = TEST_REDIS_URL): boolean =>
  spawnSync(process.execPath, ['-e', PROBE, url], { timeout: 20_000 }).status === 0;

export const REDIS_SKIP_REASON = `SKIPPED: no Redis answers at ${TEST_REDIS_URL}, so the Redis read models were NOT tested. Start one (redis-server --port 6379 --save "") or set REDIS_URL; ARBOR_REQUIRE_ALL=1 turns this skip into a failure.`;

/**
 * `describe` when Redis answers; otherwise one skipped test with the reason (one line on the
 * console), or a failing one under ARBOR_REQUIRE_ALL=1 (CI).
 */
export const describeWithRedis = (name: string, body: () => void): void => {
  if (redisAnswers()) {
    describe(name, body);
    return;
  }
  console.warn(REDIS_SKIP_REASON);
  describe(name, () => {
    if (process.env.ARBOR_REQUIRE_ALL === '1')
      it('requires Redis (ARBOR_REQUIRE_ALL=1)', () => {
        throw new Error(REDIS_SKIP_REASON);
      });
    else it.skip(REDIS_SKIP_REASON, () => undefined);
  });
};

/** A key prefix of its own for one test file: parallel workers never collide. */
export const randomPrefix = (label: string): string =>
  `arbor-test:${label}:${randomBytes(6).toString('hex')}`;

export const connectTestRedis = async (): Promise<RedisClient> => {
  return connectRedis({ kind: 'node', url: TEST_REDIS_URL });
};

/** Deletes only this prefix's keys (SCAN MATCH + UNLINK; never FLUSHALL/FLUSHDB). */
export const cleanupPrefix = (client: RedisClient, prefix: string): Promise<number> =>
  unlinkMatching(client, `${prefix}*`);
