import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Post,
  Put,
  UseGuards,
} from '@nestjs/common';
import { AdminGuard } from '../auth/admin.guard';
import { type Caller, CallerParam } from '../auth/caller';
import {
  CreateTenantBody as CreateTenant,
  IssueKeyBody as IssueKey,
  RateLimitBody,
} from '@arbor/contract';
import { parseOrThrow } from '../validation/zod';
import { RateLimiterService, TenantDirectoryService } from '@arbor/application';
import { Idempotency, Idempotent } from '../idempotency/idempotency';
import { IdParam } from '../validation/id-param';

@UseGuards(AdminGuard)
@Controller('v1/tenants')
export class TenantsController {
  constructor(
    private readonly directory: TenantDirectoryService,
    private readonly limiter: RateLimiterService,
    private readonly idempotency: Idempotency,
  ) {}

  private limits(tenantId: string) {
    const limit = this.directory.rateLimit(tenantId);
    return { limit, effective: this.limiter.limitFor(tenantId) };
  }

  @Get(':tenantId/limits')
  async getLimits(@IdParam('tenantId') tenantId: string) {
    await this.directory.fresh();
    return this.limits(tenantId);
  }

  @Put(':tenantId/limits')
  async putLimits(
    @IdParam('tenantId') tenantId: string,
    @Body() body: unknown,
    @CallerParam() caller: Caller,
  ) {
    const { limit } = parseOrThrow(RateLimitBody, body);
    await this.directory.setRateLimit(tenantId, limit, caller);
    return this.limits(tenantId);
  }

  @Idempotent({
    secret: 'apiKey',
    subject: (_request, answer) => (typeof answer.id === 'string' ? answer.id : null),
  })
  @Post()
  async create(@Body() body: unknown, @CallerParam() caller: Caller) {
    const { name } = parseOrThrow(CreateTenant, body ?? {});
    return this.directory.createTenant(name ?? null, caller);
  }

  @Idempotent({
    secret: 'apiKey',
    subject: (request) => (request.params as { tenantId: string }).tenantId,
  })
  @Post(':tenantId/keys')
  async issueKey(
    @IdParam('tenantId') tenantId: string,
    @Body() body: unknown,
    @CallerParam() caller: Caller,
  ) {
    const { label } = parseOrThrow(IssueKey, body ?? {});
    return this.directory.issueKey(tenantId, label ?? null, caller);
  }

  @Get(':tenantId/keys')
  async listKeys(@IdParam('tenantId') tenantId: string) {
    await this.directory.fresh();
    return { items: this.directory.listKeys(tenantId) };
  }

  @Delete(':tenantId/keys/:keyId')
  @HttpCode(204)
  async revoke(
    @IdParam('tenantId') tenantId: string,
    @Param('keyId') keyId: string,
    @CallerParam() caller: Caller,
  ) {
    await this.directory.revokeKey(tenantId, keyId, caller);
    // The answers that issued the tenant's keys go with it (they held no secret, but named it).
    this.idempotency.store.forgetSubject(tenantId);
  }
}
