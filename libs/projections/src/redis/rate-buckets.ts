import { createHash } from 'node:crypto';
import { createRedisClient, type RedisClient, type RedisTarget } from './connection';

/** One atomic bucket for every replica, on Redis's clock (`TIME`); `charge` may go below zero. */
// Tokens come back as a string: Lua numbers become integers in replies.
const BUCKET_SCRIPT = `
local perMs = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local cost = tonumber(ARGV[3])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local s = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(s[1])
if tokens == nil then
  tokens = burst
else
  tokens = math.min(burst, tokens + math.max(0, now - tonumber(s[2])) * perMs)
end
local allowed = 0
if tokens >= cost or ARGV[4] == 'charge' then
  tokens = tokens - cost
  allowed = 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil((burst - tokens) / perMs) + 1000)
return {allowed, tostring(tokens)}
`;

const BUCKET_SHA = createHash('sha1').update(BUCKET_SCRIPT).digest('hex');

export interface RedisBucketLimit {
  ratePerSecond: number;
  burst: number;
}

export interface RedisRateBuckets {
  take(
    id: string,
    limit: RedisBucketLimit,
    cost: number,
  ): Promise<{ allowed: boolean; tokens: number }>;
  charge(id: string, limit: RedisBucketLimit, cost: number): Promise<void>;
  close(): Promise<void>;
}

export const createRedisRateBuckets = (options: {
  target: RedisTarget;
  prefix: string;
  /** A slower answer counts as unreachable (the caller decides locally). */
  timeoutMs: number;
  onError: (error: unknown) => void;
  onConnectFailed: (error: unknown) => void;
}): RedisRateBuckets => {
  // No offline queue: while disconnected a call fails at once instead of waiting for Redis.
  let client: RedisClient | null = createRedisClient(options.target, {
    disableOfflineQueue: true,
    maxReconnectDelayMs: null,
    commandTimeoutMs: options.timeoutMs,
  });
  client.onError(options.onError);
  // Not awaited: the service starts while Redis is away; node-redis keeps reconnecting.
  client.connect().catch(options.onConnectFailed);

  const run = async (
    id: string,
    limit: RedisBucketLimit,
    cost: number,
    mode: 'take' | 'charge',
  ): Promise<[number, string]> => {
    const r = client;
    if (r === null || !r.isReady) throw new Error('Redis is not connected');
    const args = ['1', `${options.prefix}:rl:{${id}}`];
    args.push(String(limit.ratePerSecond / 1000), String(limit.burst), String(cost), mode);
    const reply = await r.sendCommand(['EVALSHA', BUCKET_SHA, ...args]).catch((e: unknown) => {
      if (!String(e).includes('NOSCRIPT')) throw e;
      return r.sendCommand(['EVAL', BUCKET_SCRIPT, ...args]);
    });
    return reply as [number, string];
  };

  return {
    take: async (id, limit, cost) => {
      const [allowed, tokens] = await run(id, limit, cost, 'take');
      return { allowed: Number(allowed) === 1, tokens: Number(tokens) };
    },
    charge: async (id, limit, cost) => {
      await run(id, limit, cost, 'charge');
    },
    close: async () => {
      const r = client;
      client = null;
      if (r !== null) await r.close().catch(() => undefined);
    },
  };
};
