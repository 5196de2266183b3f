import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { type Caller } from '../caller';
import { IDEMPOTENCY_MEMOS, type IdempotencyMemos } from '../idempotency/memos';
import { type ActorContext, TenantDirectoryService } from '../tenants/tenant-directory.service';
import {
  ErasureService,
  type ErasureResult,
  type ForkPolicy,
  type SweepResult,
} from './erasure.service';

export type ErasureProgress = (done: number, total: number) => void;

export class EraseConversation extends Command<ErasureResult> {
  constructor(
    readonly caller: Caller,
    readonly conversationId: string,
    readonly reason: string,
    readonly forks?: ForkPolicy,
    readonly onProgress?: ErasureProgress,
  ) {
    super();
  }
}

export class EraseTenant extends Command<{
  tenantId: string;
  erased: number;
  conversations: number;
  reason: string;
}> {
  constructor(
    readonly tenantId: string,
    readonly reason: string,
    readonly actor: string,
  ) {
    super();
  }
}

export class SweepRetention extends Command<SweepResult> {
  constructor(
    readonly actor: string,
    readonly progress: { onScan?: ErasureProgress; onProgress?: ErasureProgress } = {},
  ) {
    super();
  }
}

export class SetRetention extends Command<{ retentionDays: number | null }> {
  constructor(
    readonly tenantId: string,
    readonly retentionDays: number | null,
    readonly ctx: ActorContext,
  ) {
    super();
  }
}

@CommandHandler(EraseConversation)
export class EraseConversationHandler implements ICommandHandler<EraseConversation> {
  constructor(
    private readonly erasure: ErasureService,
    @Inject(IDEMPOTENCY_MEMOS) private readonly memos: IdempotencyMemos,
  ) {}
  async execute(c: EraseConversation) {
    const result = await this.erasure.eraseConversation(c.caller, c.conversationId, {
      reason: c.reason,
      forks: c.forks,
      onProgress: c.onProgress,
    });
    // A stored answer of a retried request may quote it (a title, a failed input).
    this.memos.forgetConversation(c.caller.tenantId, c.conversationId);
    return result;
  }
}

@CommandHandler(EraseTenant)
export class EraseTenantHandler implements ICommandHandler<EraseTenant> {
  constructor(
    private readonly erasure: ErasureService,
    @Inject(IDEMPOTENCY_MEMOS) private readonly memos: IdempotencyMemos,
  ) {}
  async execute(c: EraseTenant) {
    const result = await this.erasure.eraseTenant(c.tenantId, { reason: c.reason, actor: c.actor });
    this.memos.forgetTenant(c.tenantId);
    return result;
  }
}

@CommandHandler(SweepRetention)
export class SweepRetentionHandler implements ICommandHandler<SweepRetention> {
  constructor(
    private readonly erasure: ErasureService,
    @Inject(IDEMPOTENCY_MEMOS) private readonly memos: IdempotencyMemos,
  ) {}
  async execute(c: SweepRetention) {
    const result = await this.erasure.sweep({ actor: c.actor, ...c.progress });
    for (const e of result.erased) this.memos.forgetConversation(e.tenantId, e.conversationId);
    return result;
  }
}

@CommandHandler(SetRetention)
export class SetRetentionHandler implements ICommandHandler<SetRetention> {
  constructor(private readonly directory: TenantDirectoryService) {}
  execute(c: SetRetention) {
    return this.directory.setRetention(c.tenantId, c.retentionDays, c.ctx);
  }
}

export const ERASURE_COMMAND_HANDLERS = [
  EraseConversationHandler,
  EraseTenantHandler,
  SweepRetentionHandler,
  SetRetentionHandler,
];
