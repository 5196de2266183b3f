import { Body, Controller, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { AuthGuard } from '../auth/auth.guard';
import { type Caller, CallerParam } from '../auth/caller';
import { parseOrThrow } from '../validation/zod';
import { checkShapes, overridesFromQuery } from '../settings/capabilities';
import { ContextService } from '@arbor/application';
import { FieldLimits } from '../limits/field-limits';
import { ContextBody, Id, ReportQuery } from '@arbor/contract';

@UseGuards(AuthGuard)
@Controller('v1/conversations/:id/context')
export class ContextController {
  constructor(
    private readonly context: ContextService,
    private readonly fields: FieldLimits,
  ) {}

  @Post()
  @HttpCode(200)
  async build(@Param('id') id: string, @Body() body: unknown, @CallerParam() caller: Caller) {
    parseOrThrow(Id, id, 'params');
    const request = parseOrThrow(ContextBody, body);
    this.fields.check(
      (request.tools ?? []).map(
        (t, k) => [`body.tools[${k}].input_schema`, t.input_schema] as const,
      ),
    );
    checkShapes(request.capabilities, 'body.capabilities');
    return this.context.build(caller, id, request);
  }

  @Get('report')
  async report(@Param('id') id: string, @Query() query: unknown, @CallerParam() caller: Caller) {
    parseOrThrow(Id, id, 'params');
    const q = parseOrThrow(ReportQuery, query, 'query');
    const capabilities = overridesFromQuery(q);
    checkShapes(capabilities, 'query');
    return this.context.report(caller, id, q.provider, q.model, capabilities);
  }
}
