import { Body, Controller, Delete, Get, HttpCode, Post, Put, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { CommitDraft, DiscardDraft, GetDraft, SaveDraft } from '@arbor/application';
import { CommitDraftBody, SaveDraftBody } from '@arbor/contract';
import { AuthGuard } from '../auth/auth.guard';
import { type Caller, CallerParam } from '../auth/caller';
import { Idempotent } from '../idempotency/idempotency';
import { answerCommit, TurnBodies } from '../validation/turn-body';
import { IdParam } from '../validation/id-param';

/** Open turns: `PUT|GET|DELETE …/draft` and `POST …/draft/commit`. */
@UseGuards(AuthGuard)
@Controller('v1/conversations/:id/draft')
export class DraftsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
    private readonly turnBodies: TurnBodies,
  ) {}

  @Put()
  @HttpCode(200)
  async save(@IdParam('id') id: string, @Body() body: unknown, @CallerParam() caller: Caller) {
    const b = this.turnBodies.parse(SaveDraftBody, body);
    const { result } = await this.commands.execute(
      new SaveDraft(caller, id, {
        parentId: b.parentId,
        messages: b.messages,
        ...(b.draftId !== undefined ? { draftId: b.draftId } : {}),
      }),
    );
    return result;
  }

  @Get()
  async get(@IdParam('id') id: string, @CallerParam() caller: Caller) {
    return this.queries.execute(new GetDraft(caller, id));
  }

  @Delete()
  @HttpCode(200)
  async discard(@IdParam('id') id: string, @CallerParam() caller: Caller) {
    return (await this.commands.execute(new DiscardDraft(caller, id))).result;
  }

  @Idempotent()
  @Post('commit')
  async commit(
    @IdParam('id') id: string,
    @Body() body: unknown,
    @CallerParam() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const raw = body ?? {};
    const withMessages =
      typeof raw === 'object' && raw !== null && !('messages' in raw)
        ? { ...raw, messages: [] }
        : raw;
    const b = this.turnBodies.parse(CommitDraftBody, withMessages);
    const { result } = await this.commands.execute(
      new CommitDraft(caller, id, {
        messages: b.messages,
        ...(b.turnId !== undefined ? { turnId: b.turnId } : {}),
        ...(b.expectedTip !== undefined ? { expectedTip: b.expectedTip } : {}),
      }),
    );
    return answerCommit(reply, result);
  }
}
