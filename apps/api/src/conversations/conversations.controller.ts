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
import type { FastifyReply } from 'fastify';
import { exportSession, exportSource, reportHeader } from '@arbor/exporters';
import { AuthGuard } from '../auth/auth.guard';
import { type Caller, CallerParam } from '../auth/caller';
import { parseOrThrow } from '../validation/zod';
import { answerCommit, TurnBodies } from '../validation/turn-body';
import { Readable } from 'node:stream';
import { Cursors } from './cursor';
import { capPageBytes, itemsWithinBytes, jsonLines } from '../limits/page-bytes';
import { assertAnswerWithin } from '../limits/answer-bytes';
import { FieldLimits } from '../limits/field-limits';
import { Idempotent } from '../idempotency/idempotency';
import {
  ARBOR_CONFIG,
  BranchSummaryService,
  type ArborConfig,
  CommitTurn,
  conversationView,
  ForkConversation,
  MoveTip,
  RecordFailure,
  Resume,
  RewindToCheckpoint,
  SetCheckpoint,
  StartConversation,
  markdownChunks,
  GetActiveBranch,
  GetBranchOrTree,
  GetConversation,
  GetMessage,
  GetRetry,
  GetTree,
  ListCheckpoints,
  ListConversations,
  ListConversationsBy,
  ListEvents,
  type Page,
} from '@arbor/application';
import * as S from '@arbor/contract';
import { IdParam } from '../validation/id-param';

@UseGuards(AuthGuard)
@Controller('v1/conversations')
export class ConversationsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
    private readonly branchSummaries: BranchSummaryService,
    @Inject(ARBOR_CONFIG) private readonly config: ArborConfig,
    private readonly fields: FieldLimits,
    private readonly turnBodies: TurnBodies,
    private readonly cursors: Cursors,
  ) {}

  /**
   * A list answer, bounded by ARBOR_PAGE_MAX_BYTES as well as by `limit` (`next` then continues
   * at the first item left out); `next` is an opaque cursor bound to the tenant and this list.
   */
  private page<T>(caller: Caller, list: string, whole: Page<T>) {
    const p = capPageBytes(whole, this.config.limits.pageMaxBytes);
    return p.nextAt === null
      ? { items: p.items }
      : { items: p.items, next: this.cursors.encode(caller.tenantId, list, p.nextAt) };
  }

  @Idempotent()
  @Post()
  async start(@Body() body: unknown, @CallerParam() caller: Caller) {
    const b = parseOrThrow(S.StartConversationBody, body ?? {});
    this.fields.check([['body.metadata', b.metadata]]);
    const id = b.id ?? crypto.randomUUID();
    const { result } = await this.commands.execute(
      new StartConversation(caller, id, { title: b.title ?? null, metadata: b.metadata }),
    );
    return { id: result.conversationId, tip: result.tip, revision: result.revision };
  }

  @Get()
  async list(@QueryParams() query: unknown, @CallerParam() caller: Caller) {
    const q = parseOrThrow(S.ConversationsQuery, query, 'query');
    const sort = q.sort ?? (q.q !== undefined ? 'title' : 'created');
    const order = q.order ?? 'asc';
    if (sort !== 'created' || order !== 'asc' || q.q !== undefined) {
      // Keyset pages in another order; the cursor is bound to the sort, order and prefix.
      const list = `conversations?sort=${sort}&order=${order}&q=${q.q ?? ''}`;
      const limit = q.limit ?? 50;
      const page = await this.queries.execute(
        new ListConversationsBy(caller, {
          sort,
          order,
          titlePrefix: q.q ?? null,
          after: this.cursors.decodeKey(caller.tenantId, list, q.cursor),
          limit,
        }),
      );
      const items = page.items.map((c) => conversationView({ ...c, forks: [] }));
      const n = itemsWithinBytes(items, this.config.limits.pageMaxBytes);
      const more = page.more || n < items.length;
      return more && n > 0
        ? {
            items: items.slice(0, n),
            next: this.cursors.encodeKey(caller.tenantId, list, page.keys[n - 1]),
          }
        : { items: items.slice(0, n) };
    }
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
  async get(@Param('id') id: string, @CallerParam() caller: Caller) {
    return conversationView(await this.queries.execute(new GetConversation(caller, id)));
  }

  @Put(':id')
  async ensure(
    @IdParam('id') id: string,
    @Body() body: unknown,
    @CallerParam() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const b = parseOrThrow(S.EnsureConversationBody, body ?? {});
    try {
      const { result } = await this.commands.execute(
        new StartConversation(caller, id, { title: b.title ?? null, metadata: b.metadata }),
      );
      reply.status(201);
      return { id: result.conversationId, tip: result.tip, revision: result.revision };
    } catch (e) {
      if (!(e instanceof Error && (e as { code?: unknown }).code === 'conversation_exists'))
        throw e;
      const existing = conversationView(
        await this.queries.execute(new GetConversation(caller, id)),
      );
      reply.status(200);
      return { id: existing.id, tip: existing.tip, revision: existing.revision };
    }
  }

  @Idempotent()
  @Post(':id/turns')
  async commitTurn(
    @IdParam('id') id: string,
    @Body() body: unknown,
    @CallerParam() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const b = this.turnBodies.parse(S.CommitTurnBody, body);
    const { result } = await this.commands.execute(
      new CommitTurn(caller, id, {
        turnId: b.turnId,
        parentId: b.parentId,
        ...(b.expectedTip !== undefined ? { expectedTip: b.expectedTip } : {}),
        messages: b.messages,
      }),
    );
    return answerCommit(reply, {
      turnId: result.turnId,
      messageIds: result.messageIds,
      tip: result.tip,
      revision: result.revision,
      replayed: result.replayed,
    });
  }

  @Put(':id/tip')
  async moveTip(@IdParam('id') id: string, @Body() body: unknown, @CallerParam() caller: Caller) {
    const b = parseOrThrow(S.MoveTipBody, body);
    if (b.summarize !== undefined && b.summarize !== false && b.messageId !== null) {
      return this.branchSummaries.moveTip(caller, id, {
        messageId: b.messageId,
        ...(b.expectedTip !== undefined ? { expectedTip: b.expectedTip } : {}),
        ...(b.summarize !== true ? { instruction: b.summarize.instruction } : {}),
      });
    }
    const { result } = await this.commands.execute(
      new MoveTip(caller, id, {
        messageId: b.messageId,
        ...(b.expectedTip !== undefined ? { expectedTip: b.expectedTip } : {}),
      }),
    );
    return { tip: result.tip, revision: result.revision };
  }

  @Idempotent()
  @Post(':id/forks')
  async fork(@IdParam('id') id: string, @Body() body: unknown, @CallerParam() caller: Caller) {
    const b = parseOrThrow(S.ForkBody, body ?? {});
    this.fields.check([['body.metadata', b.metadata]]);
    const { result } = await this.commands.execute(
      new ForkConversation(caller, id, {
        forkConversationId: b.id,
        messageId: b.messageId,
        title: b.title,
        metadata: b.metadata,
      }),
    );
    return { id: result.forkConversationId, idMap: result.idMap, revision: result.forkRevision };
  }

  @Idempotent()
  @Post(':id/checkpoints')
  async setCheckpoint(
    @IdParam('id') id: string,
    @Body() body: unknown,
    @CallerParam() caller: Caller,
  ) {
    const b = parseOrThrow(S.SetCheckpointBody, body);
    const { result } = await this.commands.execute(
      new SetCheckpoint(caller, id, { label: b.label, messageId: b.messageId, replace: b.replace }),
    );
    return {
      label: result.label,
      messageId: result.messageId,
      status: 'active',
      revision: result.revision,
    };
  }

  @Get(':id/checkpoints')
  async listCheckpoints(@Param('id') id: string, @CallerParam() caller: Caller) {
    return assertAnswerWithin(
      { items: await this.queries.execute(new ListCheckpoints(caller, id)) },
      this.config.limits.answerMaxBytes,
      '`…/events`',
    );
  }

  @Post(':id/checkpoints/:label/rewind')
  @HttpCode(200)
  async rewind(
    @IdParam('id') id: string,
    @Param('label') label: string,
    @Body() body: unknown,
    @CallerParam() caller: Caller,
  ) {
    parseOrThrow(S.Label, label, 'params');
    const b = parseOrThrow(S.RewindBody, body ?? {});
    const { result } = await this.commands.execute(
      new RewindToCheckpoint(caller, id, {
        label,
        digest: b.digest ?? null,
        ...(b.expectedTip !== undefined ? { expectedTip: b.expectedTip } : {}),
      }),
    );
    return { tip: result.tip, revision: result.revision };
  }

  @Post(':id/resume')
  @HttpCode(200)
  async resume(@IdParam('id') id: string, @Body() body: unknown, @CallerParam() caller: Caller) {
    const b = parseOrThrow(S.ResumeBody, body);
    const { result } = await this.commands.execute(
      new Resume(caller, id, { keepMessages: b.keepMessages, keepTokens: b.keepTokens }),
    );
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
  async recordFailure(
    @IdParam('id') id: string,
    @Body() body: unknown,
    @CallerParam() caller: Caller,
  ) {
    const b = parseOrThrow(S.FailureBody, body);
    this.fields.check([
      ['body.input', b.input],
      ['body.error', b.error],
    ]);
    const { result } = await this.commands.execute(
      new RecordFailure(caller, id, { input: b.input, error: b.error }),
    );
    return { failureId: result.failureId, revision: result.revision };
  }

  @Get(':id/retry')
  async retry(@Param('id') id: string, @CallerParam() caller: Caller) {
    return this.queries.execute(new GetRetry(caller, id));
  }

  @Get(':id/messages')
  async messages(
    @Param('id') id: string,
    @QueryParams() query: unknown,
    @CallerParam() caller: Caller,
  ) {
    const q = parseOrThrow(S.BranchQuery, query, 'query');
    const list = `${id}/messages`;
    const from = this.cursors.decode(caller.tenantId, list, q.cursor) ?? 0;
    return this.page(
      caller,
      list,
      await this.queries.execute(new GetActiveBranch(caller, id, from, q.limit ?? 100, q.last)),
    );
  }

  @Get(':id/messages/:messageId')
  async message(
    @Param('id') id: string,
    @IdParam('messageId') messageId: string,
    @CallerParam() caller: Caller,
  ) {
    return this.queries.execute(new GetMessage(caller, id, messageId));
  }

  @Get(':id/tree')
  async tree(@Param('id') id: string, @CallerParam() caller: Caller) {
    return assertAnswerWithin(
      await this.queries.execute(new GetTree(caller, id)),
      this.config.limits.answerMaxBytes,
      '`…/messages` (the active branch) and `…/events`',
    );
  }

  @Get(':id/events')
  async events(
    @IdParam('id') id: string,
    @QueryParams() query: unknown,
    @CallerParam() caller: Caller,
  ) {
    const q = parseOrThrow(S.EventsQuery, query, 'query');
    const list = `${id}/events`;
    const from = this.cursors.decode(caller.tenantId, list, q.cursor) ?? q.fromRevision ?? 0;
    return this.page(
      caller,
      list,
      await this.queries.execute(new ListEvents(caller, id, from, q.limit ?? 100)),
    );
  }

  @Get(':id/export')
  async export(
    @Param('id') id: string,
    @QueryParams() query: unknown,
    @CallerParam() caller: Caller,
    @Res() reply: FastifyReply,
  ) {
    const q = parseOrThrow(S.ExportQuery, query, 'query');
    const scope = q.scope ?? (q.format === 'markdown' ? 'branch' : 'tree');
    const { conversation, messages } = await this.queries.execute(
      new GetBranchOrTree(caller, id, scope),
    );
    // A browser must not guess HTML from an export's content (user text may hold `<script>`).
    void reply.header('x-content-type-options', 'nosniff');
    if (q.format === 'claude-code' || q.format === 'pi') {
      const checkpoints = await this.queries.execute(new ListCheckpoints(caller, id));
      const out = exportSession(q.format, exportSource(conversation, messages, checkpoints));
      void reply
        .header('content-type', 'application/x-ndjson; charset=utf-8')
        .header('content-disposition', `attachment; filename="${out.fileName}"`)
        .header('arbor-export-report', reportHeader(out.report))
        .send(Readable.from(out.chunks()));
      return;
    }
    // Every format is streamed chunk by chunk (a line, a message): the answer is never one
    // string, so its size is bounded by neither V8's longest string nor a second copy in memory.
    if (q.format === 'jsonl') {
      void reply
        .header('content-type', 'application/x-ndjson; charset=utf-8')
        .send(Readable.from(jsonLines(messages)));
    } else {
      void reply
        .header('content-type', 'text/markdown; charset=utf-8')
        .send(Readable.from(markdownChunks(conversation.title, messages)));
    }
  }
}
