import { Body, Controller, Get, Put, UseGuards } from '@nestjs/common';
import { AuthGuard } from '../auth/auth.guard';
import { type Caller, CallerParam } from '../auth/caller';
import { TenantDirectoryService } from '@arbor/application';
import { parseOrThrow } from '../validation/zod';
import { ContextSettingsBody } from '@arbor/contract';
import { normalizeTable } from './capabilities';
import { FieldLimits } from '../limits/field-limits';

/** The calling tenant's own settings (tenant key). */
@UseGuards(AuthGuard)
@Controller('v1/settings')
export class SettingsController {
  constructor(
    private readonly directory: TenantDirectoryService,
    private readonly fields: FieldLimits,
  ) {}

  @Get('context')
  async getContext(@CallerParam() caller: Caller) {
    await this.directory.fresh();
    return this.directory.contextSettings(caller.tenantId);
  }

  @Put('context')
  async putContext(@Body() body: unknown, @CallerParam() caller: Caller) {
    const { models } = parseOrThrow(ContextSettingsBody, body);
    this.fields.check([['body.models', models]]);
    return this.directory.setContextSettings(caller.tenantId, normalizeTable(models), caller);
  }
}
