import { Body, Controller, Delete, Get, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiCreatedResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import { AdminGuard } from '../auth/admin.guard';
import { type Caller, CallerParam } from '../auth/caller';
import { openApiSchema, parseOrThrow } from '../validation/zod';
import { TenantDirectoryService } from './tenant-directory.service';
import { Idempotent } from '../idempotency/idempotency';

const CreateTenant = z.strictObject({ name: z.string().min(1).max(200).optional() });
const IssueKey = z.strictObject({ label: z.string().min(1).max(200).optional() });
const Id = z.string().regex(/^[A-Za-z0-9_-]{1,128}$/);

@ApiTags('tenants (admin)')
@ApiBearerAuth()
@UseGuards(AdminGuard)
@Controller('v1/tenants')
export class TenantsController {
  constructor(private readonly directory: TenantDirectoryService) {}

  @Idempotent()
  @Post()
  @ApiOperation({ summary: 'Create a tenant; returns its id and an API key shown once' })
  @ApiBody({ schema: openApiSchema(CreateTenant), required: false })
  @ApiCreatedResponse({
    schema: {
      type: 'object',
      properties: { id: { type: 'string' }, apiKey: { type: 'string' }, keyId: { type: 'string' } },
    },
  })
  async create(@Body() body: unknown, @CallerParam() caller: Caller) {
    const { name } = parseOrThrow(CreateTenant, body ?? {});
    return this.directory.createTenant(name ?? null, caller);
  }

  @Idempotent()
  @Post(':tenantId/keys')
  @ApiOperation({ summary: 'Issue another API key for a tenant (shown once)' })
  @ApiBody({ schema: openApiSchema(IssueKey), required: false })
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
  @ApiOperation({ summary: "A tenant's keys (ids and labels, never secrets)" })
  listKeys(@Param('tenantId') tenantId: string) {
    parseOrThrow(Id, tenantId, 'params');
    return { items: this.directory.listKeys(tenantId) };
  }

  @Delete(':tenantId/keys/:keyId')
  @HttpCode(204)
  @ApiOperation({ summary: 'Revoke a key; it answers 401 from then on' })
  async revoke(
    @Param('tenantId') tenantId: string,
    @Param('keyId') keyId: string,
    @CallerParam() caller: Caller,
  ) {
    parseOrThrow(Id, tenantId, 'params');
    await this.directory.revokeKey(tenantId, keyId, caller);
  }
}
