import { Body, Controller, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { AuthGuard } from '../auth/auth.guard';
import { type Caller, CallerParam } from '../auth/caller';
import { Id } from '../conversations/schemas';
import { openApiSchema, parseOrThrow } from '../validation/zod';
import { checkShapes, overridesFromQuery } from '../settings/schemas';
import { ContextService } from './context.service';
import { ContextBody, ReportQuery } from './schemas';
import { FieldLimits } from '../limits/field-limits';

@ApiTags('context')
@ApiBearerAuth()
@UseGuards(AuthGuard)
@Controller('v1/conversations/:id/context')
export class ContextController {
  constructor(
    private readonly context: ContextService,
    private readonly fields: FieldLimits,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary:
      'The next request body for a provider, fitted to the budget by the ladder, with a receipt',
    description:
      "Rungs, cheapest first: elide old tool results, strip old images, snapshot the middle onto PNG pages, summarize. `overflow` (numbers or the raw provider error) triggers reactive recovery. `422 cannot_fit` only when every rung together cannot fit. The model's capabilities (vision, snapshot page shape, rung knobs) come from the default table, then the tenant's `PUT /v1/settings/context` rule for the model, then this request's `capabilities`; the ones used are in `receipt.capabilities` and recorded for reproduction.",
  })
  @ApiBody({ schema: openApiSchema(ContextBody) })
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
  @ApiOperation({
    summary: 'What fills the window now, by kind, estimated and last measured; changes nothing',
    description:
      'The capability fields of the context body may be given as query parameters (`vision`, ' +
      '`snapshotShape` or `none`, `protectTokens`, `minElisionSavings`, `keepImages`, ' +
      "`maxSnapshotPages`), over the tenant's context settings; e.g. `vision=false` leaves " +
      'snapshot pages in force out of the estimate.',
  })
  @ApiQuery({ name: 'provider', required: false })
  @ApiQuery({ name: 'model', required: false })
  @ApiQuery({ name: 'vision', required: false, schema: { type: 'boolean' } })
  @ApiQuery({
    name: 'snapshotShape',
    required: false,
    description: 'A snapshot page shape id, or `none`',
  })
  @ApiQuery({ name: 'protectTokens', required: false, schema: { type: 'integer', minimum: 0 } })
  @ApiQuery({ name: 'minElisionSavings', required: false, schema: { type: 'integer', minimum: 0 } })
  @ApiQuery({ name: 'keepImages', required: false, schema: { type: 'integer', minimum: 0 } })
  @ApiQuery({ name: 'maxSnapshotPages', required: false, schema: { type: 'integer', minimum: 0 } })
  async report(@Param('id') id: string, @Query() query: unknown, @CallerParam() caller: Caller) {
    parseOrThrow(Id, id, 'params');
    const q = parseOrThrow(ReportQuery, query, 'query');
    const capabilities = overridesFromQuery(q);
    checkShapes(capabilities, 'query');
    return this.context.report(caller, id, q.provider, q.model, capabilities);
  }
}
