import { type IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import { type Caller } from '../caller';
import { type ReplayAnswer } from './replay-view';
import { type ContextSummary, ReplayService } from './replay.service';
import { type ContextReproduction } from './reproduce';

export class ReplayConversation extends Query<ReplayAnswer> {
  constructor(
    readonly caller: Caller,
    readonly conversationId: string,
    readonly revision: number,
    readonly fromDepth: number,
    readonly limit: number,
  ) {
    super();
  }
}

export class ListContexts extends Query<{ items: ContextSummary[]; nextAt: number | null }> {
  constructor(
    readonly caller: Caller,
    readonly conversationId: string,
    readonly fromRevision: number,
    readonly limit: number,
  ) {
    super();
  }
}

export class ReproduceContext extends Query<ContextReproduction> {
  constructor(
    readonly caller: Caller,
    readonly conversationId: string,
    readonly contextId: string,
  ) {
    super();
  }
}

@QueryHandler(ReplayConversation)
export class ReplayConversationHandler implements IQueryHandler<ReplayConversation> {
  constructor(private readonly replay: ReplayService) {}
  execute(q: ReplayConversation) {
    return this.replay.replay(q.caller, q.conversationId, q.revision, {
      fromDepth: q.fromDepth,
      limit: q.limit,
    });
  }
}

@QueryHandler(ListContexts)
export class ListContextsHandler implements IQueryHandler<ListContexts> {
  constructor(private readonly replay: ReplayService) {}
  execute(q: ListContexts) {
    return this.replay.listContexts(q.caller, q.conversationId, q.fromRevision, q.limit);
  }
}

@QueryHandler(ReproduceContext)
export class ReproduceContextHandler implements IQueryHandler<ReproduceContext> {
  constructor(private readonly replay: ReplayService) {}
  execute(q: ReproduceContext) {
    return this.replay.reproduce(q.caller, q.conversationId, q.contextId);
  }
}

export const REPLAY_QUERY_HANDLERS = [
  ReplayConversationHandler,
  ListContextsHandler,
  ReproduceContextHandler,
];
