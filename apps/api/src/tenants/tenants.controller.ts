import { Body, Controller, Delete, Get, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { AdminGuard } from '../auth/admin.guard';
import { type Caller, CallerParam } from '../auth/caller';
import { CreateTenantBody as CreateTenant, Id, IssueKeyBody as IssueKey } from '@arbor/contract';
import { parseOrThrow } from '../validation/zod';
import { TenantDirectoryService } from '@arbor/application';
import { Idempotent } from '../idempotency/idempotency';

@UseGuards(AdminGuard)
@Controller('v1/tenants')
export class TenantsController {
  constructor(private readonly directory: TenantDirectoryService) {}

  @Idempotent()
  @Post()
  async create(@Body() body: unknown, @CallerParam() caller: Caller) {
    const { name } = parseOrThrow(CreateTenant, body ?? {});
    return this.directory.createTenant(name ?? null, caller);
  }

  @Idempotent()
  @Post(':tenantId/keys')
  async issueKey(
    @Param('tenantId') tenantId: string,
    @Body() body: unknown,
    @CallerParam() caller: Caller,
  ) {
    parseOrThrow(Id, tenantId, 'params');
    const { label } = parseOrThrow(IssueKey, body ?? {});
    return this.directory.issueKey(tenantId, label ?? null, caller);
  }

  @Get(':tenantId/keys')
  listKeys(@Param('tenantId') tenantId: string) {
    parseOrThrow(Id, tenantId, 'params');
    return { items: this.directory.listKeys(tenantId) };
  }

  @Delete(':tenantId/keys/:keyId')
  @HttpCode(204)
  async revoke(
    @Param('tenantId') tenantId: string,
    @Param('keyId') keyId: string,
    @CallerParam() caller: Caller,
  ) {
    parseOrThrow(Id, tenantId, 'params');
    await this.directory.revokeKey(tenantId, keyId, caller);
  }
}
