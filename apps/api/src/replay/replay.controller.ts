import { Controller, Get, Param, Query as QueryParams, UseGuards } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { AuthGuard } from '../auth/auth.guard';
import { type Caller, CallerParam } from '../auth/caller';
import { Cursors } from '../conversations/cursor';
import { problemBodyOf } from '../problem/problem';
import { parseOrThrow } from '../validation/zod';
import { ListContexts, ReplayConversation, ReproduceContext } from '@arbor/application';
import { ContextsQuery, Id, ReplayQuery } from '@arbor/contract';

/** A branch cursor is only good for the revision it was handed out with. */
const branchCursorKind = (revision: number) => `replay-branch@${revision}`;

@UseGuards(AuthGuard)
@Controller('v1/conversations/:id')
export class ReplayController {
  constructor(
    private readonly queries: QueryBus,
    private readonly cursors: Cursors,
  ) {}

  @Get('replay')
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
  async reproduce(
    @Param('id') id: string,
    @Param('contextId') contextId: string,
    @CallerParam() caller: Caller,
  ) {
    parseOrThrow(Id, id, 'params');
    parseOrThrow(Id, contextId, 'params');
    const r = await this.queries.execute(new ReproduceContext(caller, id, contextId));
    return r.mismatch === undefined ? r : { ...r, mismatch: problemBodyOf(r.mismatch) };
  }
}
