import { type BucketLimit } from './token-bucket';

export interface BucketTaken {
  allowed: boolean;
  tokens: number;
}

/** A shared store throws when it cannot answer; the limiter then uses this process's buckets. */
export interface RateBucketStore {
  take(id: string, limit: BucketLimit, cost: number): Promise<BucketTaken>;
  charge(id: string, limit: BucketLimit, cost: number): Promise<void>;
  close(): Promise<void>;
}
