import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { type ContextCapabilityOverride, type TenantRateLimit } from '@arbor/tenancy';
import { IDEMPOTENCY_MEMOS, type IdempotencyMemos } from '../idempotency/memos';
import { RateLimiterService } from '../rate-limit/rate-limiter.service';
import { type BucketLimit } from '../rate-limit/token-bucket';
import { type ActorContext, TenantDirectoryService } from './tenant-directory.service';

export class CreateTenant extends Command<{ id: string; apiKey: string; keyId: string }> {
  constructor(
    readonly name: string | null,
    readonly ctx: ActorContext,
  ) {
    super();
  }
}

export class IssueApiKey extends Command<{ keyId: string; apiKey: string }> {
  constructor(
    readonly tenantId: string,
    readonly label: string | null,
    readonly ctx: ActorContext,
  ) {
    super();
  }
}

export class RevokeApiKey extends Command<void> {
  constructor(
    readonly tenantId: string,
    readonly keyId: string,
    readonly ctx: ActorContext,
  ) {
    super();
  }
}

export interface TenantLimits {
  limit: TenantRateLimit | null;
  effective: BucketLimit | null;
}

export class SetTenantRateLimit extends Command<TenantLimits> {
  constructor(
    readonly tenantId: string,
    readonly limit: TenantRateLimit | null,
    readonly ctx: ActorContext,
  ) {
    super();
  }
}

export interface ContextSettings {
  models: Readonly<Record<string, ContextCapabilityOverride>>;
  version: number;
}

export class SetContextSettings extends Command<ContextSettings> {
  constructor(
    readonly tenantId: string,
    readonly models: Record<string, ContextCapabilityOverride>,
    readonly ctx: ActorContext,
  ) {
    super();
  }
}

export const tenantLimits = (
  directory: TenantDirectoryService,
  limiter: RateLimiterService,
  tenantId: string,
): TenantLimits => ({
  limit: directory.rateLimit(tenantId),
  effective: limiter.limitFor(tenantId),
});

@CommandHandler(CreateTenant)
export class CreateTenantHandler implements ICommandHandler<CreateTenant> {
  constructor(private readonly directory: TenantDirectoryService) {}
  execute(c: CreateTenant) {
    return this.directory.createTenant(c.name, c.ctx);
  }
}

@CommandHandler(IssueApiKey)
export class IssueApiKeyHandler implements ICommandHandler<IssueApiKey> {
  constructor(private readonly directory: TenantDirectoryService) {}
  execute(c: IssueApiKey) {
    return this.directory.issueKey(c.tenantId, c.label, c.ctx);
  }
}

@CommandHandler(RevokeApiKey)
export class RevokeApiKeyHandler implements ICommandHandler<RevokeApiKey> {
  constructor(
    private readonly directory: TenantDirectoryService,
    @Inject(IDEMPOTENCY_MEMOS) private readonly memos: IdempotencyMemos,
  ) {}
  async execute(c: RevokeApiKey) {
    await this.directory.revokeKey(c.tenantId, c.keyId, c.ctx);
    // The stored answers that issued the tenant's keys go with it (no secret, but they name it).
    this.memos.forgetIssuedKeys(c.tenantId);
  }
}

@CommandHandler(SetTenantRateLimit)
export class SetTenantRateLimitHandler implements ICommandHandler<SetTenantRateLimit> {
  constructor(
    private readonly directory: TenantDirectoryService,
    private readonly limiter: RateLimiterService,
  ) {}
  async execute(c: SetTenantRateLimit) {
    await this.directory.setRateLimit(c.tenantId, c.limit, c.ctx);
    return tenantLimits(this.directory, this.limiter, c.tenantId);
  }
}

@CommandHandler(SetContextSettings)
export class SetContextSettingsHandler implements ICommandHandler<SetContextSettings> {
  constructor(private readonly directory: TenantDirectoryService) {}
  execute(c: SetContextSettings) {
    return this.directory.setContextSettings(c.tenantId, c.models, c.ctx);
  }
}

export const TENANT_COMMAND_HANDLERS = [
  CreateTenantHandler,
  IssueApiKeyHandler,
  RevokeApiKeyHandler,
  SetTenantRateLimitHandler,
  SetContextSettingsHandler,
];
