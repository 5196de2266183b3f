import { Body, Controller, Get, Put, UseGuards } from '@nestjs/common';
import { AuthGuard } from '../auth/auth.guard';
import { type Caller, CallerParam } from '../auth/caller';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { GetContextSettings, SetContextSettings } from '@arbor/application';
import { parseOrThrow } from '../validation/zod';
import { ContextSettingsBody } from '@arbor/contract';
import { normalizeTable } from './capabilities';
import { FieldLimits } from '../limits/field-limits';

/** The calling tenant's own settings (tenant key). */
@UseGuards(AuthGuard)
@Controller('v1/settings')
export class SettingsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
    private readonly fields: FieldLimits,
  ) {}

  @Get('context')
  async getContext(@CallerParam() caller: Caller) {
    return this.queries.execute(new GetContextSettings(caller.tenantId));
  }

  @Put('context')
  async putContext(@Body() body: unknown, @CallerParam() caller: Caller) {
    const { models } = parseOrThrow(ContextSettingsBody, body);
    this.fields.check([['body.models', models]]);
    return this.commands.execute(
      new SetContextSettings(caller.tenantId, normalizeTable(models), caller),
    );
  }
}
