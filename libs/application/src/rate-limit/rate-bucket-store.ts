import { type BucketLimit } from './token-bucket';

/** A bucket's decision and the (fractional) tokens it holds after it. */
export interface BucketTaken {
  allowed: boolean;
  tokens: number;
}

/**
 * Where token buckets are kept: this process (`InProcessBucketStore`) or shared by every
 * replica (Redis, libs/projections `createRedisRateBuckets`). A shared store throws when it
 * cannot answer; the limiter then decides with this process's buckets.
 */
export interface RateBucketStore {
  /** Takes `cost` tokens if the bucket holds that many. */
  take(id: string, limit: BucketLimit, cost: number): Promise<BucketTaken>;
  /** Takes `cost` tokens whatever the bucket holds (work already done). */
  charge(id: string, limit: BucketLimit, cost: number): Promise<void>;
  close(): Promise<void>;
}
