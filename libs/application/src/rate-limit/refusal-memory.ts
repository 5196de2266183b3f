import { LRUCache } from 'lru-cache';
import { type BucketAnswer, type BucketLimit } from './token-bucket';

interface Empty {
  limit: BucketLimit;
  /** Local clock (ms) when the request that was refused left this process. */
  sentAtMs: number;
  /** Before this local time the bucket cannot hold a whole token. */
  untilMs: number;
  /** Local time when the bucket is full again. */
  fullAtMs: number;
}

/**
 * "This tenant's bucket is empty until t", per process: after the bucket (in Redis, or this
 * process's own) refuses a request, the requests that follow before the bucket can hold a whole
 * token again are refused here, without asking it. The bucket stays the only one that admits.
 *
 * Why it is exact: a refusal does not change a token bucket (nothing is taken), other replicas
 * only ever take tokens, and the refill is the elapsed time × the rate; so a bucket that held
 * `tokens` (< 1) when it refused cannot hold a whole token before `(1 - tokens) / rate` has
 * passed since. That time is counted from when the refused request was *sent* (the bucket
 * decided no earlier), and rounded down to whole ms, so the memory never refuses while the bucket
 * holds a token. What it can cost: a request sent while the memory still refuses, that would have
 * reached the bucket just after the token came back (within one Redis round trip), is refused —
 * at most one round trip's worth of over-refusal per token. It never admits (no under-refusal:
 * everything it does not refuse goes to the bucket). A changed limit, a clock that went back or
 * the expiry drop the entry.
 */
export class RefusalMemory {
  private readonly empty: LRUCache<string, Empty>;

  constructor(max = 100_000) {
    this.empty = new LRUCache<string, Empty>({ max });
  }

  /** A refusal of `tenantId` decided here at `nowMs`, or null: ask the bucket. */
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

  /**
   * The bucket refused a request of `tenantId` sent at `sentAtMs`, holding `tokens` (< 1) after
   * it decided.
   */
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
