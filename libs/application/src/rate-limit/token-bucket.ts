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
  remaining: number;
  retryAfterMs: number;
  fullInMs: number;
}

export const bucketAnswer = (
  limit: BucketLimit,
  allowed: boolean,
  tokens: number,
  cost = 1,
): BucketAnswer => {
  const perMs = limit.ratePerSecond / 1000;
  return {
    allowed,
    remaining: Math.floor(tokens),
    retryAfterMs: allowed ? 0 : Math.ceil((cost - tokens) / perMs),
    fullInMs: Math.ceil((limit.burst - tokens) / perMs),
  };
};

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
  return { state: { tokens, atMs: nowMs }, answer: bucketAnswer(limit, allowed, tokens, cost) };
};

/** Takes `cost` tokens even below zero: work whose cost is known once done (a context call). */
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
