import { createHash } from 'node:crypto';
import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { createRedisClient, type RedisClient } from '@arbor/projections';
import { ARBOR_CONFIG, type ArborConfig } from '../config/config';
import { MetricsService } from '../metrics/metrics.service';
import { TenantDirectoryService } from '../tenants/tenant-directory.service';
import { RefusalMemory } from './refusal-memory';
import {
  type BucketAnswer,
  type BucketLimit,
  type BucketState,
  chargeTokens,
  takeToken,
} from './token-bucket';

/**
 * The token bucket of `token-bucket.ts`, in one Lua script so that every replica takes from the
 * same bucket atomically. Redis's own clock (`TIME`) times the refill, so replicas' clocks do not
 * matter. ARGV[4] = `charge` takes the cost even below zero (`chargeTokens`: work already done).
 * Answers `{allowed, tokens}`; tokens as a string (Lua numbers become integers in replies).
 */
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

/** Sent as EVALSHA (41 bytes instead of the script's ~800 per request); EVAL when not cached. */
const BUCKET_SHA = createHash('sha1').update(BUCKET_SCRIPT).digest('hex');

/** How long a Redis bucket call may take before this request falls back to the local bucket. */
const REDIS_TIMEOUT_MS = 250;

export interface RateDecision {
  limit: BucketLimit;
  answer: BucketAnswer;
}

/** A bucket's answer and the (fractional) tokens it holds after deciding. */
interface Taken {
  answer: BucketAnswer;
  tokens: number;
}

/**
 * Per-tenant request rate limits. The limit is the tenant's own (set by the admin, a
 * `TenantRateLimitSet` event) or the service default (ARBOR_RATE_LIMIT_RPS / _BURST; unset:
 * unlimited). The bucket is in Redis when REDIS_URL is set (shared by every replica), else in
 * this process (same semantics). When Redis does not answer, the request is decided by this
 * process's own bucket instead (fail over, not fail open: a flood is still bounded per replica)
 * and `arbor_redis_errors_total{client="rate-limit"}` counts it. After a refusal, the requests of
 * that tenant are refused in process until its bucket can hold a token again (`RefusalMemory`):
 * a flood costs no Redis round trip per request.
 */
@Injectable()
export class RateLimiterService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('RateLimits');
  private readonly local = new LRUCache<string, BucketState>({ max: 100_000 });
  private readonly refusals = new RefusalMemory();
  private redis: RedisClient | null = null;

  constructor(
    @Inject(ARBOR_CONFIG) private readonly config: ArborConfig,
    private readonly directory: TenantDirectoryService,
    private readonly metrics: MetricsService,
  ) {}

  onModuleInit(): void {
    if (this.config.redis === null) return;
    // One node or a cluster; a command while disconnected fails at once (then the local bucket
    // decides) instead of waiting in a queue for a Redis that may not come back.
    const client = createRedisClient(this.config.redis, {
      disableOfflineQueue: true,
      // node-redis's own reconnect backoff (as before this factory).
      maxReconnectDelayMs: null,
      // A slower answer counts as unreachable (the local bucket decides this request).
      commandTimeoutMs: REDIS_TIMEOUT_MS,
    });
    client.onError(() => this.metrics.redisErrors.inc({ client: 'rate-limit' }));
    // Not awaited: the service starts (and limits locally) while Redis is away; node-redis
    // keeps reconnecting.
    client.connect().catch((e: unknown) => this.logger.warn(`redis: ${String(e)}`));
    this.redis = client;
  }

  async onModuleDestroy(): Promise<void> {
    const r = this.redis;
    this.redis = null;
    if (r !== null) await r.close().catch(() => undefined);
  }

  /** The limit applied to a tenant, or null (unlimited). */
  limitFor(tenantId: string): BucketLimit | null {
    const own = this.directory.rateLimitOrNull(tenantId);
    if (own !== null) return own;
    const { ratePerSecond, burst } = this.config.rateLimits;
    return ratePerSecond > 0 ? { ratePerSecond, burst } : null;
  }

  /** Takes one token for a request of `tenantId`; null when the tenant is unlimited. */
  async take(tenantId: string): Promise<RateDecision | null> {
    const limit = this.limitFor(tenantId);
    if (limit === null) return null;
    const sentAt = Date.now();
    const known = this.refusals.refused(tenantId, limit, sentAt);
    if (known !== null) {
      this.metrics.rateLimited.inc({ tenant: tenantId });
      return { limit, answer: known };
    }
    const { answer, tokens } =
      (await this.takeRedis(tenantId, limit)) ?? this.takeLocal(tenantId, limit);
    if (!answer.allowed) {
      this.refusals.remember(tenantId, limit, sentAt, tokens);
      this.metrics.rateLimited.inc({ tenant: tenantId });
    }
    return { limit, answer };
  }

  /**
   * Takes `cost` more tokens from the tenant's bucket for work already done (a context call is
   * charged by what it assembled, `ContextService`); the bucket may go below zero. No-op for an
   * unlimited tenant or a cost ≤ 0. In Redis when set (the local bucket when Redis fails).
   */
  async charge(tenantId: string, cost: number): Promise<void> {
    const limit = this.limitFor(tenantId);
    if (limit === null || cost <= 0) return;
    const r = this.redis;
    if (r !== null && r.isReady) {
      try {
        await this.bucketRedis(tenantId, limit, cost, 'charge');
        return;
      } catch {
        this.metrics.redisErrors.inc({ client: 'rate-limit' });
      }
    }
    this.local.set(tenantId, chargeTokens(this.local.get(tenantId), limit, Date.now(), cost));
  }

  /** The bucket script on the tenant's key: EVALSHA, EVAL when Redis does not hold it yet. */
  private async bucketRedis(
    tenantId: string,
    limit: BucketLimit,
    cost: number,
    mode: 'take' | 'charge',
  ): Promise<[number, string]> {
    const r = this.redis;
    if (r === null) throw new Error('no Redis');
    const args = ['1', `${this.config.redisPrefix}:rl:{${tenantId}}`];
    args.push(String(limit.ratePerSecond / 1000), String(limit.burst), String(cost), mode);
    const reply = await r.sendCommand(['EVALSHA', BUCKET_SHA, ...args]).catch((e: unknown) => {
      if (!String(e).includes('NOSCRIPT')) throw e;
      return r.sendCommand(['EVAL', BUCKET_SCRIPT, ...args]);
    });
    return reply as [number, string];
  }

  private takeLocal(tenantId: string, limit: BucketLimit): Taken {
    const { state, answer } = takeToken(this.local.get(tenantId), limit, Date.now());
    this.local.set(tenantId, state);
    return { answer, tokens: state.tokens };
  }

  private async takeRedis(tenantId: string, limit: BucketLimit): Promise<Taken | null> {
    const r = this.redis;
    if (r === null) return null;
    if (!r.isReady) {
      this.metrics.redisErrors.inc({ client: 'rate-limit' });
      return null;
    }
    const perMs = limit.ratePerSecond / 1000;
    try {
      const reply = await this.bucketRedis(tenantId, limit, 1, 'take');
      const allowed = Number(reply[0]) === 1;
      const tokens = Number(reply[1]);
      return {
        tokens,
        answer: {
          allowed,
          remaining: Math.floor(tokens),
          retryAfterMs: allowed ? 0 : Math.ceil((1 - tokens) / perMs),
          fullInMs: Math.ceil((limit.burst - tokens) / perMs),
        },
      };
    } catch {
      this.metrics.redisErrors.inc({ client: 'rate-limit' });
      return null;
    }
  }
}
