import { Controller, Get, Param, Query as QueryParams, UseGuards } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { AuthGuard } from '../auth/auth.guard';
import { type Caller, CallerParam } from '../auth/caller';
import { Cursors } from '../conversations/cursor';
import { Id } from '../conversations/schemas';
import { parseOrThrow } from '../validation/zod';
import { ListContexts, ReplayConversation, ReproduceContext } from './queries';
import { ContextsQuery, ReplayQuery } from './schemas';
import { ApiPaging } from '../validation/paging';

/** A branch cursor is only good for the revision it was handed out with. */
const branchCursorKind = (revision: number) => `replay-branch@${revision}`;

@ApiTags('replay')
@ApiBearerAuth()
@UseGuards(AuthGuard)
@Controller('v1/conversations/:id')
export class ReplayController {
  constructor(
    private readonly queries: QueryBus,
    private readonly cursors: Cursors,
  ) {}

  @Get('replay')
  @ApiOperation({
    summary: 'The conversation as of its event at stream revision N',
    description:
      "Folds the conversation's events 0..N through the same projections and queries as the live reads. " +
      'Answers `{conversationId, revision, event: {revision, type, timestamp}, conversation ' +
      '(as GET /conversations/{id}), tip, branch: {length, items, next?}, tree (as GET .../tree), ' +
      'checkpoints, window: {cutAt, tip, messages}, resume, compactions: {decisions, inForce, ' +
      'notInForce}, pendingFailure, lastContext}`. `branch` is one page of the active branch ' +
      '(root → tip, messages as GET .../messages); `branch.next` is a cursor for the next page ' +
      'at the same revision (pass `revision` again). `400 validation_failed` without a ' +
      'non-negative integer `revision`; `404 revision_not_found` (with `lastRevision`) past the end.',
  })
  @ApiQuery({ name: 'revision', required: true, schema: { type: 'integer', minimum: 0 } })
  @ApiPaging()
  async replay(
    @Param('id') id: string,
    @QueryParams() query: unknown,
    @CallerParam() caller: Caller,
  ) {
    parseOrThrow(Id, id, 'params');
    const q = parseOrThrow(ReplayQuery, query, 'query');
    const revision = Number(q.revision);
    const list = `${id}/${branchCursorKind(revision)}`;
    const fromDepth = this.cursors.decode(caller.tenantId, list, q.cursor) ?? 0;
    const answer = await this.queries.execute(
      new ReplayConversation(caller, id, revision, fromDepth, q.limit ?? 100),
    );
    const { nextDepth, ...branch } = answer.branch;
    return {
      ...answer,
      branch:
        nextDepth === null
          ? branch
          : { ...branch, next: this.cursors.encode(caller.tenantId, list, nextDepth) },
    };
  }

  @Get('contexts')
  @ApiOperation({
    summary: 'The contexts handed out (their ContextAssembled receipts), oldest first, paged',
    description:
      'Items: `{contextId, revision, timestamp, provider, model, mode, budgetTokens, tip, cutAt, ' +
      'bodyHash, estimatedTokens, decisionIds, newDecisionIds, capabilities}` (`capabilities`: the ' +
      'vision, snapshot page shape and rung knobs it was assembled with; null on older ones).',
  })
  @ApiQuery({ name: 'fromRevision', required: false, schema: { type: 'integer', minimum: 0 } })
  @ApiPaging()
  async contexts(
    @Param('id') id: string,
    @QueryParams() query: unknown,
    @CallerParam() caller: Caller,
  ) {
    parseOrThrow(Id, id, 'params');
    const q = parseOrThrow(ContextsQuery, query, 'query');
    const from =
      this.cursors.decode(caller.tenantId, `${id}/contexts`, q.cursor) ??
      Number(q.fromRevision ?? 0);
    const p = await this.queries.execute(new ListContexts(caller, id, from, q.limit ?? 100));
    return p.nextAt === null
      ? { items: p.items }
      : { items: p.items, next: this.cursors.encode(caller.tenantId, `${id}/contexts`, p.nextAt) };
  }

  @Get('contexts/:contextId')
  @ApiOperation({
    summary: 'Reproduce a context handed out earlier, byte for byte, and compare its hash',
    description:
      'Folds the log to the revision the context was built on, takes the recorded window ' +
      '(cut → tip), the decisions in force then plus the ones it added, and the recorded request, ' +
      'runs the ladder in replay mode (no new decision), re-renders snapshot pages from source, ' +
      'encodes and hashes. Answers `{contextId, revision, basedOnRevision, provider, model, body, ' +
      'bodyHash, recordedHash, match, checks}`; when `match` is false it also carries `mismatch`, ' +
      'a problem detail with `code: context_mismatch` and a `reason` (`body_differs`, ' +
      '`snapshot_renderer_unavailable`, `rung_needed`, `window_differs`, `decisions_differ`, ' +
      '`unknown_request`, `reproduction_failed`); `body` is null when it could not be rebuilt ' +
      'exactly. The status is 200 either way. `404 context_not_found` for an unknown id.',
  })
  async reproduce(
    @Param('id') id: string,
    @Param('contextId') contextId: string,
    @CallerParam() caller: Caller,
  ) {
    parseOrThrow(Id, id, 'params');
    parseOrThrow(Id, contextId, 'params');
    return this.queries.execute(new ReproduceContext(caller, id, contextId));
  }
}
