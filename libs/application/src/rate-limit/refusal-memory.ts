import { LRUCache } from 'lru-cache';
import { type BucketAnswer, type BucketLimit } from './token-bucket';

interface Empty {
  limit: BucketLimit;
  sentAtMs: number;
  untilMs: number;
  fullAtMs: number;
}

/** Per-process memory of a bucket's refusal (exact: see README, "Refusal memory"). */
export class RefusalMemory {
  private readonly empty: LRUCache<string, Empty>;

  constructor(max = 100_000) {
    this.empty = new LRUCache<string, Empty>({ max });
  }

  refused(tenantId: string, limit: BucketLimit, nowMs: number): BucketAnswer | null {
    const e = this.empty.get(tenantId);
    if (e === undefined) return null;
    if (
      nowMs >= e.untilMs ||
      nowMs < e.sentAtMs ||
      e.limit.ratePerSecond !== limit.ratePerSecond ||
      e.limit.burst !== limit.burst
    ) {
      this.empty.delete(tenantId);
      return null;
    }
    return {
      allowed: false,
      remaining: 0,
      retryAfterMs: e.untilMs - nowMs,
      fullInMs: Math.max(0, e.fullAtMs - nowMs),
    };
  }

  remember(tenantId: string, limit: BucketLimit, sentAtMs: number, tokens: number): void {
    const perMs = limit.ratePerSecond / 1000;
    const untilMs = sentAtMs + Math.floor((1 - tokens) / perMs);
    if (untilMs <= sentAtMs) return;
    this.empty.set(tenantId, {
      limit,
      sentAtMs,
      untilMs,
      fullAtMs: sentAtMs + Math.floor((limit.burst - tokens) / perMs),
    });
  }
}
