import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { createRedisRateBuckets } from '@arbor/projections';
import { ARBOR_CONFIG, type ArborConfig } from '../config/config';
import { MetricsService } from '../metrics/metrics.service';
import { TenantDirectoryService } from '../tenants/tenant-directory.service';
import { InProcessBucketStore } from './in-process-bucket-store';
import { type BucketTaken, type RateBucketStore } from './rate-bucket-store';
import { RefusalMemory } from './refusal-memory';
import { type BucketAnswer, type BucketLimit, bucketAnswer } from './token-bucket';

const REDIS_TIMEOUT_MS = 250;

export interface RateDecision {
  limit: BucketLimit;
  answer: BucketAnswer;
}

/** If the shared store does not answer, this process's bucket decides (a flood stays bounded). */
@Injectable()
export class RateLimiterService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('RateLimits');
  private readonly local = new InProcessBucketStore();
  private readonly refusals = new RefusalMemory();
  private shared: RateBucketStore | null = null;

  constructor(
    @Inject(ARBOR_CONFIG) private readonly config: ArborConfig,
    private readonly directory: TenantDirectoryService,
    private readonly metrics: MetricsService,
  ) {}

  onModuleInit(): void {
    if (this.config.redis === null) return;
    this.shared = createRedisRateBuckets({
      target: this.config.redis,
      prefix: this.config.redisPrefix,
      timeoutMs: REDIS_TIMEOUT_MS,
      onError: () => this.metrics.redisErrors.inc({ client: 'rate-limit' }),
      onConnectFailed: (e) => this.logger.warn(`redis: ${String(e)}`),
    });
  }

  async onModuleDestroy(): Promise<void> {
    const s = this.shared;
    this.shared = null;
    await s?.close();
  }

  limitFor(tenantId: string): BucketLimit | null {
    const own = this.directory.rateLimitOrNull(tenantId);
    if (own !== null) return own;
    const { ratePerSecond, burst } = this.config.rateLimits;
    return ratePerSecond > 0 ? { ratePerSecond, burst } : null;
  }

  async take(tenantId: string): Promise<RateDecision | null> {
    const limit = this.limitFor(tenantId);
    if (limit === null) return null;
    const sentAt = Date.now();
    const known = this.refusals.refused(tenantId, limit, sentAt);
    if (known !== null) {
      this.metrics.rateLimited.inc({ tenant: tenantId });
      return { limit, answer: known };
    }
    const { allowed, tokens } =
      (await this.takeShared(tenantId, limit)) ?? this.local.takeNow(tenantId, limit, 1);
    if (!allowed) {
      this.refusals.remember(tenantId, limit, sentAt, tokens);
      this.metrics.rateLimited.inc({ tenant: tenantId });
    }
    return { limit, answer: bucketAnswer(limit, allowed, tokens) };
  }

  /** Charges work already done (a context call): the bucket may go below zero. */
  async charge(tenantId: string, cost: number): Promise<void> {
    const limit = this.limitFor(tenantId);
    if (limit === null || cost <= 0) return;
    if (this.shared !== null) {
      try {
        await this.shared.charge(tenantId, limit, cost);
        return;
      } catch {
        this.metrics.redisErrors.inc({ client: 'rate-limit' });
      }
    }
    this.local.chargeNow(tenantId, limit, cost);
  }

  private async takeShared(tenantId: string, limit: BucketLimit): Promise<BucketTaken | null> {
    if (this.shared === null) return null;
    try {
      return await this.shared.take(tenantId, limit, 1);
    } catch {
      this.metrics.redisErrors.inc({ client: 'rate-limit' });
      return null;
    }
  }
}
