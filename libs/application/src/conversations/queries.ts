import { Inject } from '@nestjs/common';
import { type IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import { conversationStream, type EventStore, StreamNotFoundError } from '@arbor/event-store';
import { type Message } from '@arbor/domain';
import {
  type CheckpointRow,
  type ConversationListOptions,
  type ConversationListPage,
  type ReadModelQueries,
  type ConversationRow,
  type ForkRow,
  type TreeNode,
} from '@arbor/projections';
import { type Caller } from '../caller';
import { AppError, conversationNotFound } from '../errors';
import { EVENT_STORE } from '../store/store.provider';
import { ReadModelsService } from './read-models.service';

export interface Page<T> {
  items: T[];
  nextAt: number | null;
  resumeAt: (index: number) => number;
  /** A page that must not be cut (it has no cursor to continue from). */
  whole?: boolean;
}

abstract class ConversationQuery<R> extends Query<R> {
  constructor(
    readonly caller: Caller,
    readonly conversationId: string,
  ) {
    super();
  }
}

export class GetConversation extends ConversationQuery<ConversationRow & { forks: ForkRow[] }> {}
export class ListConversations extends Query<Page<ConversationRow>> {
  constructor(
    readonly caller: Caller,
    readonly after: number,
    readonly limit: number,
  ) {
    super();
  }
}
export class ListConversationsBy extends Query<ConversationListPage> {
  constructor(
    readonly caller: Caller,
    readonly options: ConversationListOptions,
  ) {
    super();
  }
}
export class GetActiveBranch extends ConversationQuery<Page<Message>> {
  constructor(
    caller: Caller,
    conversationId: string,
    readonly fromDepth: number,
    readonly limit: number,
    readonly last?: number,
  ) {
    super(caller, conversationId);
  }
}
export class GetMessage extends ConversationQuery<Message> {
  constructor(
    caller: Caller,
    conversationId: string,
    readonly messageId: string,
  ) {
    super(caller, conversationId);
  }
}
export class GetTree extends ConversationQuery<{
  tip: string | null;
  nodes: TreeNode[];
  branchPoints: string[];
  checkpoints: CheckpointRow[];
}> {}
export class ListCheckpoints extends ConversationQuery<CheckpointRow[]> {}
export class GetRetry extends ConversationQuery<{
  failureId: string;
  input: unknown;
  error: unknown;
}> {}
export class GetBranchOrTree extends ConversationQuery<{
  conversation: ConversationRow;
  messages: Message[];
}> {
  constructor(
    caller: Caller,
    conversationId: string,
    readonly scope: 'tree' | 'branch',
  ) {
    super(caller, conversationId);
  }
}
/** Stream revision only: a global position would tell a tenant how much the others write. */
export interface AuditEvent {
  revision: number;
  type: string;
  data: unknown;
  metadata: Record<string, unknown>;
}
export class ListEvents extends ConversationQuery<Page<AuditEvent>> {
  constructor(
    caller: Caller,
    conversationId: string,
    readonly fromRevision: number,
    readonly limit: number,
  ) {
    super(caller, conversationId);
  }
}

const notFound = (): AppError => conversationNotFound();

const existing = async (
  readModels: ReadModelsService,
  q: ConversationQuery<unknown>,
): Promise<{
  queries: ReadModelQueries;
  conversation: ConversationRow & { forks: ForkRow[] };
}> => {
  const queries = await readModels.consistentFor(q.caller.keyId);
  const conversation = await queries.getConversation(q.caller.tenantId, q.conversationId);
  if (!conversation) throw notFound();
  return { queries, conversation };
};

@QueryHandler(GetConversation)
export class GetConversationHandler implements IQueryHandler<GetConversation> {
  constructor(private readonly readModels: ReadModelsService) {}
  async execute(q: GetConversation) {
    return (await existing(this.readModels, q)).conversation;
  }
}

@QueryHandler(ListConversations)
export class ListConversationsHandler implements IQueryHandler<ListConversations> {
  constructor(private readonly readModels: ReadModelsService) {}
  async execute(q: ListConversations) {
    const queries = await this.readModels.consistentFor(q.caller.keyId);
    const page = await queries.listConversations(q.caller.tenantId, q.after, q.limit);
    return {
      items: page.items,
      nextAt: page.nextSeq,
      resumeAt: (i: number) => (i === 0 ? q.after : page.seqs[i - 1]),
    };
  }
}

@QueryHandler(ListConversationsBy)
export class ListConversationsByHandler implements IQueryHandler<ListConversationsBy> {
  constructor(private readonly readModels: ReadModelsService) {}
  async execute(q: ListConversationsBy) {
    const queries = await this.readModels.consistentFor(q.caller.keyId);
    return queries.listConversationsBy(q.caller.tenantId, q.options);
  }
}

@QueryHandler(GetActiveBranch)
export class GetActiveBranchHandler implements IQueryHandler<GetActiveBranch> {
  constructor(private readonly readModels: ReadModelsService) {}
  async execute(q: GetActiveBranch) {
    const { queries } = await existing(this.readModels, q);
    const page =
      q.last !== undefined
        ? await queries.activeBranchTail(q.caller.tenantId, q.conversationId, q.last)
        : await queries.activeBranchPage(q.caller.tenantId, q.conversationId, q.fromDepth, q.limit);
    // A tail (`last`) is one page by definition: a byte cut has no cursor to continue, so keep all.
    return {
      items: page.items,
      nextAt: page.nextDepth,
      resumeAt: (i: number) => q.fromDepth + i,
      ...(q.last !== undefined ? { whole: true } : {}),
    };
  }
}

@QueryHandler(GetMessage)
export class GetMessageHandler implements IQueryHandler<GetMessage> {
  constructor(private readonly readModels: ReadModelsService) {}
  async execute(q: GetMessage) {
    const { queries } = await existing(this.readModels, q);
    const m = await queries.getMessage(q.caller.tenantId, q.conversationId, q.messageId);
    if (!m) throw new AppError('message_not_found');
    return m;
  }
}

@QueryHandler(GetTree)
export class GetTreeHandler implements IQueryHandler<GetTree> {
  constructor(private readonly readModels: ReadModelsService) {}
  async execute(q: GetTree) {
    const { queries, conversation } = await existing(this.readModels, q);
    const nodes = await queries.tree(q.caller.tenantId, q.conversationId);
    return {
      tip: conversation.tip,
      nodes,
      branchPoints: nodes.filter((n) => n.children.length > 1).map((n) => n.id),
      checkpoints: await queries.checkpoints(q.caller.tenantId, q.conversationId),
    };
  }
}

@QueryHandler(ListCheckpoints)
export class ListCheckpointsHandler implements IQueryHandler<ListCheckpoints> {
  constructor(private readonly readModels: ReadModelsService) {}
  async execute(q: ListCheckpoints) {
    const { queries } = await existing(this.readModels, q);
    return queries.checkpoints(q.caller.tenantId, q.conversationId);
  }
}

@QueryHandler(GetRetry)
export class GetRetryHandler implements IQueryHandler<GetRetry> {
  constructor(private readonly readModels: ReadModelsService) {}
  async execute(q: GetRetry) {
    const { queries } = await existing(this.readModels, q);
    const failure = await queries.pendingFailure(q.caller.tenantId, q.conversationId);
    if (!failure)
      throw new AppError(
        'nothing_to_retry',
        'No failed turn is waiting: the last failure (if any) was followed by a committed turn.',
      );
    return failure;
  }
}

@QueryHandler(GetBranchOrTree)
export class GetBranchOrTreeHandler implements IQueryHandler<GetBranchOrTree> {
  constructor(private readonly readModels: ReadModelsService) {}
  async execute(q: GetBranchOrTree) {
    const { queries, conversation } = await existing(this.readModels, q);
    if (q.scope === 'tree')
      return {
        conversation,
        messages: await queries.allMessages(q.caller.tenantId, q.conversationId),
      };
    const messages: Message[] = [];
    for (let from: number | null = 0; from !== null;) {
      const page = await queries.activeBranchPage(q.caller.tenantId, q.conversationId, from, 1000);
      messages.push(...page.items);
      from = page.nextDepth;
      // A long branch is read in pages, other requests served between two.
      if (from !== null) await new Promise((r) => setImmediate(r));
    }
    return { conversation, messages };
  }
}

/** The audit log is the log itself: read straight from the store, never from a projection. */
@QueryHandler(ListEvents)
export class ListEventsHandler implements IQueryHandler<ListEvents> {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}
  async execute(q: ListEvents) {
    try {
      const events = await this.store.readStream(
        conversationStream(q.caller.tenantId, q.conversationId),
        {
          fromRevision: BigInt(q.fromRevision),
          maxCount: q.limit + 1,
        },
      );
      const page = events.slice(0, q.limit);
      const from = q.fromRevision;
      return {
        resumeAt: (i: number) => (i < page.length ? Number(page[i].revision) : from + i),
        items: page.map((e) => ({
          revision: Number(e.revision),
          type: e.type,
          data: e.data,
          metadata: e.metadata,
        })),
        nextAt: events.length > q.limit ? Number(events[q.limit].revision) : null,
      };
    } catch (e) {
      if (e instanceof StreamNotFoundError) throw notFound();
      throw e;
    }
  }
}

export const QUERY_HANDLERS = [
  GetConversationHandler,
  ListConversationsHandler,
  ListConversationsByHandler,
  GetActiveBranchHandler,
  GetMessageHandler,
  GetTreeHandler,
  ListCheckpointsHandler,
  GetRetryHandler,
  GetBranchOrTreeHandler,
  ListEventsHandler,
];
