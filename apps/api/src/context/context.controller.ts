import { Body, Controller, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { AuthGuard } from '../auth/auth.guard';
import { type Caller, CallerParam } from '../auth/caller';
import { Id } from '../conversations/schemas';
import { openApiSchema, parseOrThrow } from '../validation/zod';
import { ContextService } from './context.service';
import { ContextBody, ReportQuery } from './schemas';

@ApiTags('context')
@ApiBearerAuth()
@UseGuards(AuthGuard)
@Controller('v1/conversations/:id/context')
export class ContextController {
  constructor(private readonly context: ContextService) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary:
      'The next request body for a provider, fitted to the budget by the ladder, with a receipt',
    description:
      'Rungs, cheapest first: elide old tool results, strip old images, snapshot the middle onto PNG pages, summarize. `overflow` (numbers or the raw provider error) triggers reactive recovery. `422 cannot_fit` only when every rung together cannot fit.',
  })
  @ApiBody({ schema: openApiSchema(ContextBody) })
  async build(@Param('id') id: string, @Body() body: unknown, @CallerParam() caller: Caller) {
    parseOrThrow(Id, id, 'params');
    const request = parseOrThrow(ContextBody, body);
    return this.context.build(caller, id, request);
  }

  @Get('report')
  @ApiOperation({
    summary: 'What fills the window now, by kind, estimated and last measured; changes nothing',
  })
  @ApiQuery({ name: 'provider', required: false })
  @ApiQuery({ name: 'model', required: false })
  async report(@Param('id') id: string, @Query() query: unknown, @CallerParam() caller: Caller) {
    parseOrThrow(Id, id, 'params');
    const q = parseOrThrow(ReportQuery, query, 'query');
    return this.context.report(caller, id, q.provider, q.model);
  }
}
