import { Body, Controller, Get, Put, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthGuard } from '../auth/auth.guard';
import { type Caller, CallerParam } from '../auth/caller';
import { TenantDirectoryService } from '../tenants/tenant-directory.service';
import { openApiSchema, parseOrThrow } from '../validation/zod';
import { FieldLimits } from '../limits/field-limits';
import { CapabilityOverridesSchema, ContextSettingsBody, normalizeTable } from './schemas';

const SETTINGS_RESPONSE = {
  type: 'object',
  properties: {
    models: { type: 'object', additionalProperties: openApiSchema(CapabilityOverridesSchema) },
    version: { type: 'integer', description: 'How many times the settings were set (0 = never)' },
  },
};

/** The calling tenant's own settings (tenant key). */
@ApiTags('settings')
@ApiBearerAuth()
@UseGuards(AuthGuard)
@Controller('v1/settings')
export class SettingsController {
  constructor(
    private readonly directory: TenantDirectoryService,
    private readonly fields: FieldLimits,
  ) {}

  @Get('context')
  @ApiOperation({
    summary: "The tenant's context capability overrides by model-name prefix",
    description: '`{models, version}`; `{models: {}, version: 0}` until they are first set.',
  })
  @ApiOkResponse({ schema: SETTINGS_RESPONSE })
  getContext(@CallerParam() caller: Caller) {
    return this.directory.contextSettings(caller.tenantId);
  }

  @Put('context')
  @ApiOperation({
    summary:
      "Replace the tenant's context capability overrides (one TenantContextSettingsSet event)",
    description:
      'Per model-name prefix (case-insensitive, stored lowercase; the longest prefix matching ' +
      'the model wins): `vision`, `snapshotShape` (a page shape id, or null for no snapshots), ' +
      "`protectTokens`, `minElisionSavings`, `keepImages`, `maxSnapshotPages`. A request's own " +
      '`capabilities` override these field by field. Contexts already handed out keep (and ' +
      'reproduce with) the capabilities they recorded. An unknown shape id is `400 ' +
      'unknown_snapshot_shape`. Setting the same table again appends nothing.',
  })
  @ApiBody({ schema: openApiSchema(ContextSettingsBody) })
  @ApiOkResponse({ schema: SETTINGS_RESPONSE })
  async putContext(@Body() body: unknown, @CallerParam() caller: Caller) {
    const { models } = parseOrThrow(ContextSettingsBody, body);
    this.fields.check([['body.models', models]]);
    return this.directory.setContextSettings(caller.tenantId, normalizeTable(models), caller);
  }
}
