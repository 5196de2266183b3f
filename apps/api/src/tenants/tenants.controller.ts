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
import { CreateTenantBody, IssueKeyBody as IssueKey, RateLimitBody } from '@arbor/contract';
import { parseOrThrow } from '../validation/zod';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import {
  CreateTenant,
  GetTenantLimits,
  IssueApiKey,
  ListApiKeys,
  RevokeApiKey,
  SetTenantRateLimit,
} from '@arbor/application';
import { Idempotent } from '../idempotency/idempotency';
import { IdParam } from '../validation/id-param';

@UseGuards(AdminGuard)
@Controller('v1/tenants')
export class TenantsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @Get(':tenantId/limits')
  async getLimits(@IdParam('tenantId') tenantId: string) {
    return this.queries.execute(new GetTenantLimits(tenantId));
  }

  @Put(':tenantId/limits')
  async putLimits(
    @IdParam('tenantId') tenantId: string,
    @Body() body: unknown,
    @CallerParam() caller: Caller,
  ) {
    const { limit } = parseOrThrow(RateLimitBody, body);
    return this.commands.execute(new SetTenantRateLimit(tenantId, limit, caller));
  }

  @Idempotent({
    secret: 'apiKey',
    subject: (_request, answer) => (typeof answer.id === 'string' ? answer.id : null),
  })
  @Post()
  async create(@Body() body: unknown, @CallerParam() caller: Caller) {
    const { name } = parseOrThrow(CreateTenantBody, body ?? {});
    return this.commands.execute(new CreateTenant(name ?? null, caller));
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
    return this.commands.execute(new IssueApiKey(tenantId, label ?? null, caller));
  }

  @Get(':tenantId/keys')
  async listKeys(@IdParam('tenantId') tenantId: string) {
    return { items: await this.queries.execute(new ListApiKeys(tenantId)) };
  }

  @Delete(':tenantId/keys/:keyId')
  @HttpCode(204)
  async revoke(
    @IdParam('tenantId') tenantId: string,
    @Param('keyId') keyId: string,
    @CallerParam() caller: Caller,
  ) {
    await this.commands.execute(new RevokeApiKey(tenantId, keyId, caller));
  }
}
