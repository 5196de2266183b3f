import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { IdempotencyStore } from '@arbor/tenancy/sqlite/idempotency-store';
import { type ArborConfig } from '../config/config';

/** What an erasure or a key revocation must forget: a stored answer may quote content or a key. */
export interface IdempotencyMemos {
  forgetTenant(tenantId: string): void;
  forgetConversation(tenantId: string, conversationId: string): void;
  forgetIssuedKeys(tenantId: string): void;
}

export const IDEMPOTENCY_MEMOS = Symbol('IDEMPOTENCY_MEMOS');
export const IDEMPOTENCY_STORE = Symbol('IDEMPOTENCY_STORE');

export const createIdempotencyStore = (config: ArborConfig): IdempotencyStore =>
  new IdempotencyStore(
    config.dataDir,
    config.limits.idempotencyTtlHours * 3600_000,
    config.synchronous,
  );

@Injectable()
export class IdempotencyLifecycle implements OnApplicationShutdown {
  constructor(@Inject(IDEMPOTENCY_STORE) private readonly store: IdempotencyStore) {}

  onApplicationShutdown(): void {
    this.store.close();
  }
}

export { IdempotencyStore };
export type { Claim, StoredAnswer } from '@arbor/tenancy/sqlite/idempotency-store';
