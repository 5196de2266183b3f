import {
  Body,
  Controller,
  Get,
  HttpCode,
  Param,
  Post,
  Put,
  Query as QueryParams,
  Res,
  UseGuards,
} from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import type { FastifyReply } from 'fastify';
import { AuthGuard } from '../auth/auth.guard';
import { type Caller, CallerParam } from '../auth/caller';
import { parseOrThrow } from '../validation/zod';
import { answerCommit, TurnBodies } from '../validation/turn-body';
import { ConversationReads } from './conversation-reads';
import { FieldLimits } from '../limits/field-limits';
import { Idempotent } from '../idempotency/idempotency';
import {
  CommitTurn,
  conversationView,
  ForkConversation,
  MoveTip,
  MoveTipWithSummary,
  RecordFailure,
  Resume,
  RewindToCheckpoint,
  SetCheckpoint,
  StartConversation,
  GetConversation,
  GetRetry,
} from '@arbor/application';
import * as S from '@arbor/contract';
import { IdParam } from '../validation/id-param';

@UseGuards(AuthGuard)
@Controller('v1/conversations')
export class ConversationsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
    private readonly fields: FieldLimits,
    private readonly turnBodies: TurnBodies,
    private readonly reads: ConversationReads,
  ) {}

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
  list(@QueryParams() query: unknown, @CallerParam() caller: Caller) {
    return this.reads.list(query, caller);
  }

  @Get(':id')
  get(@Param('id') id: string, @CallerParam() caller: Caller) {
    return this.reads.get(id, caller);
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
      return this.commands.execute(
        new MoveTipWithSummary(caller, id, {
          messageId: b.messageId,
          ...(b.expectedTip !== undefined ? { expectedTip: b.expectedTip } : {}),
          ...(b.summarize !== true ? { instruction: b.summarize.instruction } : {}),
        }),
      );
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
  listCheckpoints(@Param('id') id: string, @CallerParam() caller: Caller) {
    return this.reads.listCheckpoints(id, caller);
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
  messages(@Param('id') id: string, @QueryParams() query: unknown, @CallerParam() caller: Caller) {
    return this.reads.messages(id, query, caller);
  }

  @Get(':id/messages/:messageId')
  message(
    @Param('id') id: string,
    @IdParam('messageId') messageId: string,
    @CallerParam() caller: Caller,
  ) {
    return this.reads.message(id, messageId, caller);
  }

  @Get(':id/tree')
  tree(@Param('id') id: string, @CallerParam() caller: Caller) {
    return this.reads.tree(id, caller);
  }

  @Get(':id/events')
  events(@IdParam('id') id: string, @QueryParams() query: unknown, @CallerParam() caller: Caller) {
    return this.reads.events(id, query, caller);
  }

  @Get(':id/export')
  export(
    @Param('id') id: string,
    @QueryParams() query: unknown,
    @CallerParam() caller: Caller,
    @Res() reply: FastifyReply,
  ) {
    return this.reads.export(id, query, caller, reply);
  }
}
