import { LRUCache } from 'lru-cache';
import { type BucketTaken, type RateBucketStore } from './rate-bucket-store';
import { type BucketLimit, type BucketState, chargeTokens, takeToken } from './token-bucket';

export class InProcessBucketStore implements RateBucketStore {
  private readonly buckets = new LRUCache<string, BucketState>({ max: 100_000 });

  takeNow(id: string, limit: BucketLimit, cost: number): BucketTaken {
    const { state, answer } = takeToken(this.buckets.get(id), limit, Date.now(), cost);
    this.buckets.set(id, state);
    return { allowed: answer.allowed, tokens: state.tokens };
  }

  chargeNow(id: string, limit: BucketLimit, cost: number): void {
    this.buckets.set(id, chargeTokens(this.buckets.get(id), limit, Date.now(), cost));
  }

  take(id: string, limit: BucketLimit, cost: number): Promise<BucketTaken> {
    return Promise.resolve(this.takeNow(id, limit, cost));
  }

  charge(id: string, limit: BucketLimit, cost: number): Promise<void> {
    this.chargeNow(id, limit, cost);
    return Promise.resolve();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
