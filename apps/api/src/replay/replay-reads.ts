import { Inject, Injectable } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { type Caller } from '../auth/caller';
import { Cursors } from '../conversations/cursor';
import { problemBodyOf } from '../problem/problem';
import { parseOrThrow } from '../validation/zod';
import {
  ARBOR_CONFIG,
  type ArborConfig,
  ListContexts,
  ReplayConversation,
  ReproduceContext,
} from '@arbor/application';
import { capPageBytes } from '../limits/page-bytes';
import { assertAnswerWithin } from '../limits/answer-bytes';
import { ContextsQuery, ReplayQuery } from '@arbor/contract';

/** A branch cursor is only good for the revision it was handed out with. */
const branchCursorKind = (revision: number) => `replay-branch@${revision}`;

/**
 * The replay routes' answers (parse, dispatch to the QueryBus, bound and page the result), shared
 * by the tenant's routes and the admin's reads of a tenant's data.
 */
@Injectable()
export class ReplayReads {
  constructor(
    private readonly queries: QueryBus,
    private readonly cursors: Cursors,
    @Inject(ARBOR_CONFIG) private readonly config: ArborConfig,
  ) {}

  async replay(id: string, query: unknown, caller: Caller) {
    const q = parseOrThrow(ReplayQuery, query, 'query');
    const revision = Number(q.revision);
    const list = `${id}/${branchCursorKind(revision)}`;
    const fromDepth = this.cursors.decode(caller.tenantId, list, q.cursor) ?? 0;
    const answer = await this.queries.execute(
      new ReplayConversation(caller, id, revision, fromDepth, q.limit ?? 100),
    );
    // The branch page is bounded by ARBOR_PAGE_MAX_BYTES like every list; the rest (the tree,
    // checkpoints, compactions) cannot be paged, so the whole answer has ARBOR_ANSWER_MAX_BYTES.
    const { limits } = this.config;
    const capped = capPageBytes(
      {
        items: answer.branch.items,
        nextAt: answer.branch.nextDepth,
        resumeAt: (n) => fromDepth + n,
      },
      limits.pageMaxBytes,
    );
    const branch = { length: answer.branch.length, items: capped.items };
    return assertAnswerWithin(
      {
        ...answer,
        branch:
          capped.nextAt === null
            ? branch
            : { ...branch, next: this.cursors.encode(caller.tenantId, list, capped.nextAt) },
      },
      limits.answerMaxBytes,
      '`…/events` (fold them) and `…/messages`',
    );
  }

  async contexts(id: string, query: unknown, caller: Caller) {
    const q = parseOrThrow(ContextsQuery, query, 'query');
    const from =
      this.cursors.decode(caller.tenantId, `${id}/contexts`, q.cursor) ??
      Number(q.fromRevision ?? 0);
    const whole = await this.queries.execute(new ListContexts(caller, id, from, q.limit ?? 100));
    const p = capPageBytes(
      { ...whole, resumeAt: (n) => whole.items[n]?.revision ?? from },
      this.config.limits.pageMaxBytes,
    );
    return p.nextAt === null
      ? { items: p.items }
      : { items: p.items, next: this.cursors.encode(caller.tenantId, `${id}/contexts`, p.nextAt) };
  }

  async reproduce(id: string, contextId: string, caller: Caller) {
    const r = await this.queries.execute(new ReproduceContext(caller, id, contextId));
    return assertAnswerWithin(
      r.mismatch === undefined ? r : { ...r, mismatch: problemBodyOf(r.mismatch) },
      this.config.limits.answerMaxBytes,
      '`…/messages` (the window) and `…/events`',
    );
  }
}
