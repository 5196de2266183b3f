import {
  Body,
  Controller,
  Get,
  HttpCode,
  Inject,
  Param,
  Post,
  Query,
  UseGuards,
} from '@nestjs/common';
import { AuthGuard } from '../auth/auth.guard';
import { type Caller, CallerParam } from '../auth/caller';
import { parseOrThrow } from '../validation/zod';
import { checkShapes, overridesFromQuery } from '../settings/capabilities';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import {
  ARBOR_CONFIG,
  type ArborConfig,
  BuildContext,
  GetContextReport,
  ListCompactions,
  parseBodyWithMessages,
  RevokeCompaction,
} from '@arbor/application';
import { FieldLimits, turnJsonFields } from '../limits/field-limits';
import { ContextBody, ReportQuery, RevokeCompactionBody } from '@arbor/contract';
import { z } from 'zod';
import { DEFAULT_RESERVE_TOKENS } from '@arbor/context';
import { Problem } from '../problem/problem';
import { IdParam } from '../validation/id-param';

/** The answer's room (`maxTokens`, or the default reserve) must leave the budget room for input. */
const checkReserve = (request: { budgetTokens: number; maxTokens?: number }): void => {
  const reserve = request.maxTokens ?? DEFAULT_RESERVE_TOKENS;
  if (reserve < request.budgetTokens) return;
  const named = request.maxTokens === undefined ? 'the default maxTokens reserve' : 'maxTokens';
  throw new Problem(
    'validation_failed',
    `budgetTokens ${request.budgetTokens} cannot hold ${named} ${reserve}: raise budgetTokens or lower maxTokens`,
    {
      errors: [
        {
          path: request.maxTokens === undefined ? 'body.budgetTokens' : 'body.maxTokens',
          code: 'budget_below_max_tokens',
          message: `budgetTokens ${request.budgetTokens} must exceed maxTokens ${reserve}`,
        },
      ],
    },
  );
};

@UseGuards(AuthGuard)
@Controller('v1/conversations/:id/context')
export class ContextController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
    private readonly fields: FieldLimits,
    @Inject(ARBOR_CONFIG) private readonly config: ArborConfig,
  ) {}

  @Post()
  @HttpCode(200)
  async build(@IdParam('id') id: string, @Body() body: unknown, @CallerParam() caller: Caller) {
    const request = parseBodyWithMessages(ContextBody, body, 'append', this.config.maxImageBytes);
    this.fields.check(
      (request.tools ?? []).map(
        (t, k) => [`body.tools[${k}].input_schema`, t.input_schema] as const,
      ),
    );
    this.fields.check(
      [...turnJsonFields(request.append ?? [])].map(
        ([path, value]) => [path.replace(/^body\.messages/, 'body.append'), value] as const,
      ),
    );
    checkShapes(request.capabilities, 'body.capabilities');
    checkReserve(request);
    return this.commands.execute(new BuildContext(caller, id, request));
  }

  @Get('report')
  async report(@IdParam('id') id: string, @Query() query: unknown, @CallerParam() caller: Caller) {
    const q = parseOrThrow(ReportQuery, query, 'query');
    const capabilities = overridesFromQuery(q);
    checkShapes(capabilities, 'query');
    return this.queries.execute(
      new GetContextReport(caller, id, q.provider, q.model, capabilities),
    );
  }
}

const DecisionId = z.string().min(1).max(200);

/** Compaction decisions: the list with status, and revoking one. */
@UseGuards(AuthGuard)
@Controller('v1/conversations/:id/compactions')
export class CompactionsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @Get()
  async list(@IdParam('id') id: string, @CallerParam() caller: Caller) {
    return this.queries.execute(new ListCompactions(caller, id));
  }

  @Post(':decisionId/revoke')
  @HttpCode(200)
  async revoke(
    @IdParam('id') id: string,
    @Param('decisionId') decisionId: string,
    @Body() body: unknown,
    @CallerParam() caller: Caller,
  ) {
    parseOrThrow(DecisionId, decisionId, 'params');
    const b = parseOrThrow(RevokeCompactionBody, body ?? {});
    return this.commands.execute(new RevokeCompaction(caller, id, decisionId, b.reason));
  }
}
