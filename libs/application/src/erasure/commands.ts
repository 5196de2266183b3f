import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { type Caller } from '../caller';
import { type ActorContext, TenantDirectoryService } from '../tenants/tenant-directory.service';
import {
  ErasureService,
  type ErasureResult,
  type ForkPolicy,
  type SweepResult,
} from './erasure.service';

/** Erase one conversation of the caller's tenant (and, with `forks: 'erase'`, its lineage). */
export class EraseConversation extends Command<ErasureResult> {
  constructor(
    readonly caller: Caller,
    readonly conversationId: string,
    readonly reason: string,
    readonly forks?: ForkPolicy,
  ) {
    super();
  }
}

/** Erase every conversation of a tenant, revoke its keys, record `TenantErased`. */
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

/** Erase what each tenant's retention policy says is due. */
export class SweepRetention extends Command<SweepResult> {
  constructor(readonly actor: string) {
    super();
  }
}

/** Set (or clear, null) a tenant's retention policy. */
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
  constructor(private readonly erasure: ErasureService) {}
  execute(c: EraseConversation) {
    return this.erasure.eraseConversation(c.caller, c.conversationId, {
      reason: c.reason,
      forks: c.forks,
    });
  }
}

@CommandHandler(EraseTenant)
export class EraseTenantHandler implements ICommandHandler<EraseTenant> {
  constructor(private readonly erasure: ErasureService) {}
  execute(c: EraseTenant) {
    return this.erasure.eraseTenant(c.tenantId, { reason: c.reason, actor: c.actor });
  }
}

@CommandHandler(SweepRetention)
export class SweepRetentionHandler implements ICommandHandler<SweepRetention> {
  constructor(private readonly erasure: ErasureService) {}
  execute(c: SweepRetention) {
    return this.erasure.sweep({ actor: c.actor });
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
