import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  Param,
  Post,
  Put,
  Res,
  UseGuards,
} from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { ARBOR_CONFIG, type ArborConfig, DraftService, parseTurnBody } from '@arbor/application';
import { CommitDraftBody, Id, SaveDraftBody } from '@arbor/contract';
import { AuthGuard } from '../auth/auth.guard';
import { type Caller, CallerParam } from '../auth/caller';
import { Idempotent } from '../idempotency/idempotency';
import { FieldLimits, turnJsonFields } from '../limits/field-limits';
import { parseOrThrow } from '../validation/zod';

/** Open turns: `PUT|GET|DELETE …/draft` and `POST …/draft/commit`. */
@UseGuards(AuthGuard)
@Controller('v1/conversations/:id/draft')
export class DraftsController {
  constructor(
    private readonly drafts: DraftService,
    private readonly fields: FieldLimits,
    @Inject(ARBOR_CONFIG) private readonly config: ArborConfig,
  ) {}

  @Put()
  @HttpCode(200)
  async save(@Param('id') id: string, @Body() body: unknown, @CallerParam() caller: Caller) {
    parseOrThrow(Id, id, 'params');
    const b = parseTurnBody(SaveDraftBody, body, this.config.maxImageBytes);
    this.fields.check(turnJsonFields(b.messages));
    return this.drafts.save(caller, id, {
      parentId: b.parentId,
      messages: b.messages,
      ...(b.draftId !== undefined ? { draftId: b.draftId } : {}),
    });
  }

  @Get()
  async get(@Param('id') id: string, @CallerParam() caller: Caller) {
    parseOrThrow(Id, id, 'params');
    return this.drafts.get(caller, id);
  }

  @Delete()
  @HttpCode(200)
  async discard(@Param('id') id: string, @CallerParam() caller: Caller) {
    parseOrThrow(Id, id, 'params');
    return this.drafts.discard(caller, id);
  }

  @Idempotent()
  @Post('commit')
  async commit(
    @Param('id') id: string,
    @Body() body: unknown,
    @CallerParam() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    parseOrThrow(Id, id, 'params');
    const raw = body ?? {};
    const withMessages =
      typeof raw === 'object' && raw !== null && !('messages' in raw)
        ? { ...raw, messages: [] }
        : raw;
    const b = parseTurnBody(CommitDraftBody, withMessages, this.config.maxImageBytes);
    this.fields.check(turnJsonFields(b.messages));
    const result = await this.drafts.commit(caller, id, {
      messages: b.messages,
      ...(b.turnId !== undefined ? { turnId: b.turnId } : {}),
      ...(b.expectedTip !== undefined ? { expectedTip: b.expectedTip } : {}),
    });
    if (result.replayed) void reply.status(200);
    return result;
  }
}
