/** A tenant's bucket as stored: tokens left and when they were counted (ms). */
export interface BucketState {
  tokens: number;
  atMs: number;
}

export interface BucketLimit {
  ratePerSecond: number;
  burst: number;
}

export interface BucketAnswer {
  allowed: boolean;
  /** Whole tokens left after this request. */
  remaining: number;
  /** When refused: ms until one token is back. 0 when allowed. */
  retryAfterMs: number;
  /** Ms until the bucket is full again. */
  fullInMs: number;
}

/**
 * Pure token bucket: refill by elapsed time (capped at `burst`), then take `cost` tokens if there
 * are that many. The Redis script (`redis-buckets.ts`) computes exactly this, atomically.
 */
export const takeToken = (
  state: BucketState | undefined,
  limit: BucketLimit,
  nowMs: number,
  cost = 1,
): { state: BucketState; answer: BucketAnswer } => {
  const perMs = limit.ratePerSecond / 1000;
  const before =
    state === undefined
      ? limit.burst
      : Math.min(limit.burst, state.tokens + Math.max(0, nowMs - state.atMs) * perMs);
  const allowed = before >= cost;
  const tokens = allowed ? before - cost : before;
  return {
    state: { tokens, atMs: nowMs },
    answer: {
      allowed,
      remaining: Math.floor(tokens),
      retryAfterMs: allowed ? 0 : Math.ceil((cost - tokens) / perMs),
      fullInMs: Math.ceil((limit.burst - tokens) / perMs),
    },
  };
};

/**
 * Takes `cost` tokens whatever the bucket holds (after the refill): the bucket may go below zero,
 * and the tenant's next request waits until it has refilled past one token. For work whose cost
 * is known only once it is done (a context call's assembled bytes and rendered pages).
 */
export const chargeTokens = (
  state: BucketState | undefined,
  limit: BucketLimit,
  nowMs: number,
  cost: number,
): BucketState => {
  const perMs = limit.ratePerSecond / 1000;
  const before =
    state === undefined
      ? limit.burst
      : Math.min(limit.burst, state.tokens + Math.max(0, nowMs - state.atMs) * perMs);
  return { tokens: before - cost, atMs: nowMs };
};
