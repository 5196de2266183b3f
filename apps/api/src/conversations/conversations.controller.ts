import {
  Body,
  Controller,
  Get,
  HttpCode,
  Inject,
  Param,
  Post,
  Put,
  Query as QueryParams,
  Res,
  UseGuards,
} from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiBody, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { type Command as DomainCommand, parseMessages, type ResultOf } from '@arbor/domain';
import { AuthGuard } from '../auth/auth.guard';
import { type Caller, CallerParam } from '../auth/caller';
import { ARBOR_CONFIG, type ArborConfig } from '../config/config';
import { openApiSchema, parseOrThrow } from '../validation/zod';
import { type CommandOptions, ConversationCommand } from './commands';
import { type Executed } from './conversation.repository';
import { Cursors } from './cursor';
import { conversationView } from './views';
import { messagesProblem } from './domain-problem';
import { toJsonl, toMarkdown } from './export';
import {
  GetActiveBranch,
  GetBranchOrTree,
  GetConversation,
  GetMessage,
  GetRetry,
  GetTree,
  ListCheckpoints,
  ListConversations,
  ListEvents,
  type Page,
} from './queries';
import * as S from './schemas';
import { ApiPaging } from '../validation/paging';
import { FieldLimits, turnJsonFields } from '../limits/field-limits';
import { Idempotent } from '../idempotency/idempotency';

@ApiTags('conversations')
@ApiBearerAuth()
@UseGuards(AuthGuard)
@Controller('v1/conversations')
export class ConversationsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
    @Inject(ARBOR_CONFIG) private readonly config: ArborConfig,
    private readonly fields: FieldLimits,
    private readonly cursors: Cursors,
  ) {}

  /** A list answer; `next` is an opaque cursor bound to the caller's tenant and this list. */
  private page<T>(caller: Caller, list: string, p: Page<T>) {
    return p.nextAt === null
      ? { items: p.items }
      : { items: p.items, next: this.cursors.encode(caller.tenantId, list, p.nextAt) };
  }

  private run<C extends DomainCommand>(
    caller: Caller,
    id: string,
    command: C,
    options: CommandOptions = {},
  ): Promise<Executed<ResultOf<C['type']>>> {
    parseOrThrow(S.Id, id, 'params');
    return this.commands.execute(new ConversationCommand(caller, id, command, options)) as Promise<
      Executed<ResultOf<C['type']>>
    >;
  }

  @Idempotent()
  @Post()
  @ApiOperation({ summary: 'Start a conversation' })
  @ApiBody({ schema: openApiSchema(S.StartConversationBody), required: false })
  async start(@Body() body: unknown, @CallerParam() caller: Caller) {
    const b = parseOrThrow(S.StartConversationBody, body ?? {});
    this.fields.check([['body.metadata', b.metadata]]);
    const id = b.id ?? crypto.randomUUID();
    const { result } = await this.run(caller, id, {
      type: 'start',
      conversationId: id,
      title: b.title ?? null,
      metadata: b.metadata,
    });
    return { id: result.conversationId, tip: result.tip, revision: result.revision };
  }

  @Get()
  @ApiOperation({ summary: "The tenant's conversations, oldest first, cursor-paginated" })
  @ApiPaging(50)
  async list(@QueryParams() query: unknown, @CallerParam() caller: Caller) {
    const q = parseOrThrow(S.PageQuery, query, 'query');
    const p = await this.queries.execute(
      new ListConversations(
        caller,
        this.cursors.decode(caller.tenantId, 'conversations', q.cursor) ?? -1,
        q.limit ?? 50,
      ),
    );
    return this.page(caller, 'conversations', {
      ...p,
      items: p.items.map((c) => conversationView({ ...c, forks: [] })),
    });
  }

  @Get(':id')
  @ApiOperation({ summary: 'Tip, revision, title, lineage (forked from / forks), counts' })
  async get(@Param('id') id: string, @CallerParam() caller: Caller) {
    return conversationView(await this.queries.execute(new GetConversation(caller, id)));
  }

  @Idempotent()
  @Post(':id/turns')
  @ApiOperation({ summary: 'Commit one whole turn atomically (idempotent by turnId)' })
  @ApiBody({ schema: openApiSchema(S.CommitTurnBody) })
  async commitTurn(
    @Param('id') id: string,
    @Body() body: unknown,
    @CallerParam() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const b = parseOrThrow(S.CommitTurnBody, body);
    const parsed = parseMessages(b.messages, { maxImageBytes: this.config.maxImageBytes });
    if (!parsed.ok) throw messagesProblem(parsed.errors);
    this.fields.check(turnJsonFields(parsed.value));
    const { result } = await this.run(
      caller,
      id,
      {
        type: 'commitTurn',
        turnId: b.turnId,
        parentId: b.parentId ?? null,
        ...(b.expectedTip !== undefined ? { expectedTip: b.expectedTip } : {}),
        messages: parsed.value,
      },
      { parentFromTip: b.parentId === undefined },
    );
    if (result.replayed) void reply.status(200);
    return {
      turnId: result.turnId,
      messageIds: result.messageIds,
      tip: result.tip,
      revision: result.revision,
      replayed: result.replayed,
    };
  }

  @Put(':id/tip')
  @ApiOperation({ summary: 'Branch: move the tip to any message; appends exactly one TipMoved' })
  @ApiBody({ schema: openApiSchema(S.MoveTipBody) })
  async moveTip(@Param('id') id: string, @Body() body: unknown, @CallerParam() caller: Caller) {
    const b = parseOrThrow(S.MoveTipBody, body);
    const { result } = await this.run(caller, id, {
      type: 'moveTip',
      messageId: b.messageId,
      ...(b.expectedTip !== undefined ? { expectedTip: b.expectedTip } : {}),
    });
    return { tip: result.tip, revision: result.revision };
  }

  @Idempotent()
  @Post(':id/forks')
  @ApiOperation({
    summary:
      'Fork the path ending at messageId (default: tip) into a new conversation with new ids',
    description:
      'Retry-safe: a fork retried after an error (e.g. 503 store_unavailable) returns the same ' +
      '{id, idMap} instead of making a second fork, as long as nothing else was written to the ' +
      'source in between; give `id` to make the retry safe in every case, also after a 201 whose ' +
      'answer was lost.',
  })
  @ApiBody({ schema: openApiSchema(S.ForkBody), required: false })
  async fork(@Param('id') id: string, @Body() body: unknown, @CallerParam() caller: Caller) {
    const b = parseOrThrow(S.ForkBody, body ?? {});
    this.fields.check([['body.metadata', b.metadata]]);
    const { result } = await this.run(caller, id, {
      type: 'fork',
      forkConversationId: b.id,
      messageId: b.messageId,
      title: b.title,
      metadata: b.metadata,
      path: [],
    });
    return { id: result.forkConversationId, idMap: result.idMap, revision: result.forkRevision };
  }

  @Idempotent()
  @Post(':id/checkpoints')
  @ApiOperation({ summary: 'Set a checkpoint label at a turn boundary (default: the tip)' })
  @ApiBody({ schema: openApiSchema(S.SetCheckpointBody) })
  async setCheckpoint(
    @Param('id') id: string,
    @Body() body: unknown,
    @CallerParam() caller: Caller,
  ) {
    const b = parseOrThrow(S.SetCheckpointBody, body);
    const { result } = await this.run(caller, id, {
      type: 'setCheckpoint',
      label: b.label,
      messageId: b.messageId,
      replace: b.replace,
    });
    return {
      label: result.label,
      messageId: result.messageId,
      status: 'active',
      revision: result.revision,
    };
  }

  @Get(':id/checkpoints')
  @ApiOperation({
    summary: 'Checkpoint labels with target and status (active, rewound, dropped + reason)',
  })
  async listCheckpoints(@Param('id') id: string, @CallerParam() caller: Caller) {
    return { items: await this.queries.execute(new ListCheckpoints(caller, id)) };
  }

  @Post(':id/checkpoints/:label/rewind')
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Return to the label keeping a digest; 409 checkpoint_dropped when its target was trimmed',
  })
  @ApiBody({ schema: openApiSchema(S.RewindBody), required: false })
  async rewind(
    @Param('id') id: string,
    @Param('label') label: string,
    @Body() body: unknown,
    @CallerParam() caller: Caller,
  ) {
    parseOrThrow(S.Label, label, 'params');
    const b = parseOrThrow(S.RewindBody, body ?? {});
    const { result } = await this.run(caller, id, {
      type: 'rewind',
      label,
      digest: b.digest ?? null,
      ...(b.expectedTip !== undefined ? { expectedTip: b.expectedTip } : {}),
    });
    return { tip: result.tip, revision: result.revision };
  }

  @Post(':id/resume')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Trim the live window to the most recent messages at a non-orphan boundary',
  })
  @ApiBody({ schema: openApiSchema(S.ResumeBody) })
  async resume(@Param('id') id: string, @Body() body: unknown, @CallerParam() caller: Caller) {
    const b = parseOrThrow(S.ResumeBody, body);
    const { result } = await this.run(caller, id, {
      type: 'resume',
      keepMessages: b.keepMessages,
      keepTokens: b.keepTokens,
    });
    return {
      cutAt: result.cutAt,
      droppedCheckpoints: result.droppedCheckpoints,
      keptCount: result.keptCount,
      keptTokens: result.keptTokens,
      keptWholeLastTurn: result.keptWholeLastTurn,
      revision: result.revision,
    };
  }

  @Idempotent()
  @Post(':id/failures')
  @ApiOperation({ summary: 'Record a failed turn so it can be retried after a restart' })
  @ApiBody({ schema: openApiSchema(S.FailureBody) })
  async recordFailure(
    @Param('id') id: string,
    @Body() body: unknown,
    @CallerParam() caller: Caller,
  ) {
    const b = parseOrThrow(S.FailureBody, body);
    this.fields.check([
      ['body.input', b.input],
      ['body.error', b.error],
    ]);
    const { result } = await this.run(caller, id, {
      type: 'recordFailure',
      input: b.input,
      error: b.error,
    });
    return { failureId: result.failureId, revision: result.revision };
  }

  @Get(':id/retry')
  @ApiOperation({
    summary:
      'The failed turn to retry, or 404 nothing_to_retry (distinct from conversation_not_found)',
  })
  async retry(@Param('id') id: string, @CallerParam() caller: Caller) {
    return this.queries.execute(new GetRetry(caller, id));
  }

  @Get(':id/messages')
  @ApiOperation({ summary: 'The active branch, root → tip, paged' })
  @ApiPaging()
  async messages(
    @Param('id') id: string,
    @QueryParams() query: unknown,
    @CallerParam() caller: Caller,
  ) {
    const q = parseOrThrow(S.PageQuery, query, 'query');
    const list = `${id}/messages`;
    const from = this.cursors.decode(caller.tenantId, list, q.cursor) ?? 0;
    return this.page(
      caller,
      list,
      await this.queries.execute(new GetActiveBranch(caller, id, from, q.limit ?? 100)),
    );
  }

  @Get(':id/messages/:messageId')
  @ApiOperation({ summary: 'One message, the original bytes, even if compacted' })
  async message(
    @Param('id') id: string,
    @Param('messageId') messageId: string,
    @CallerParam() caller: Caller,
  ) {
    parseOrThrow(S.Id, messageId, 'params');
    return this.queries.execute(new GetMessage(caller, id, messageId));
  }

  @Get(':id/tree')
  @ApiOperation({
    summary: 'Every node with parent and children, the tip, branch points, checkpoints',
  })
  async tree(@Param('id') id: string, @CallerParam() caller: Caller) {
    return this.queries.execute(new GetTree(caller, id));
  }

  @Get(':id/events')
  @ApiOperation({
    summary: "The conversation's audit log (its events), from a revision, paginated",
  })
  @ApiQuery({ name: 'fromRevision', required: false, schema: { type: 'integer', minimum: 0 } })
  @ApiPaging()
  async events(
    @Param('id') id: string,
    @QueryParams() query: unknown,
    @CallerParam() caller: Caller,
  ) {
    const q = parseOrThrow(S.EventsQuery, query, 'query');
    parseOrThrow(S.Id, id, 'params');
    const list = `${id}/events`;
    const from = this.cursors.decode(caller.tenantId, list, q.cursor) ?? q.fromRevision ?? 0;
    return this.page(
      caller,
      list,
      await this.queries.execute(new ListEvents(caller, id, from, q.limit ?? 100)),
    );
  }

  @Get(':id/export')
  @ApiOperation({ summary: 'The tree (jsonl default) or the active branch (markdown default)' })
  @ApiQuery({ name: 'format', required: false, enum: ['jsonl', 'markdown'] })
  @ApiQuery({ name: 'scope', required: false, enum: ['tree', 'branch'] })
  async export(
    @Param('id') id: string,
    @QueryParams() query: unknown,
    @CallerParam() caller: Caller,
    @Res() reply: FastifyReply,
  ) {
    const q = parseOrThrow(S.ExportQuery, query, 'query');
    const scope = q.scope ?? (q.format === 'jsonl' ? 'tree' : 'branch');
    const { conversation, messages } = await this.queries.execute(
      new GetBranchOrTree(caller, id, scope),
    );
    if (q.format === 'jsonl') {
      void reply
        .header('content-type', 'application/x-ndjson; charset=utf-8')
        .send(toJsonl(messages));
    } else {
      void reply
        .header('content-type', 'text/markdown; charset=utf-8')
        .send(toMarkdown(conversation.title, messages));
    }
  }
}
