import { type Message } from '@arbor/domain';
import { type EventStore, type RecordedEvent } from '@arbor/event-store';
import {
  type CheckpointRow,
  type ConversationListOptions,
  type ConversationListPage,
  type ConversationQueries,
  type ConversationRow,
  type ForkRow,
  type TreeNode,
} from './conversations/queries';

/** What the application reads, from SQLite or Redis alike; every call scoped by tenant. */
export interface ReadModelQueries {
  getConversation(
    tenantId: string,
    id: string,
  ): Promise<(ConversationRow & { forks: ForkRow[] }) | null>;
  /** Cursor = the creation order (`seq`) of the last row returned (opaque to clients). */
  listConversations(
    tenantId: string,
    afterSeq: number,
    limit: number,
  ): Promise<{
    items: ConversationRow[];
    nextSeq: number | null;
    seqs: number[];
  }>;
  listConversationsBy(
    tenantId: string,
    options: ConversationListOptions,
  ): Promise<ConversationListPage>;
  activeBranchPage(
    tenantId: string,
    id: string,
    fromDepth: number,
    limit: number,
  ): Promise<{ items: Message[]; nextDepth: number | null }>;
  activeBranchTail(
    tenantId: string,
    id: string,
    last: number,
  ): Promise<{ items: Message[]; nextDepth: null }>;
  depthOf(tenantId: string, id: string, messageId: string): Promise<number | null>;
  getMessage(tenantId: string, id: string, messageId: string): Promise<Message | null>;
  tree(tenantId: string, id: string): Promise<TreeNode[]>;
  allMessages(tenantId: string, id: string): Promise<Message[]>;
  checkpoints(tenantId: string, id: string): Promise<CheckpointRow[]>;
  pendingFailure(
    tenantId: string,
    id: string,
  ): Promise<{ failureId: string; input: unknown; error: unknown } | null>;
}

/** What the projector writes: a batch with its checkpoint (sync for SQLite, async for Redis). */
export interface ReadModelSink {
  readCheckpoint(): bigint | null | Promise<bigint | null>;
  apply(events: readonly RecordedEvent[], position: bigint): void | Promise<void>;
  reset(): void | Promise<void>;
  dump(): string | Promise<string>;
  /** The log the projector feeds it from, for a sink whose rows point into it (SQLite). */
  bindLog?(store: EventStore): void;
}

export const asyncQueries = (q: ConversationQueries): ReadModelQueries => ({
  getConversation: async (t, id) => q.getConversation(t, id),
  listConversations: async (t, after, limit) => q.listConversations(t, after, limit),
  listConversationsBy: async (t, o) => q.listConversationsBy(t, o),
  activeBranchPage: async (t, id, from, limit) => q.activeBranchPage(t, id, from, limit),
  activeBranchTail: async (t, id, last) => q.activeBranchTail(t, id, last),
  depthOf: async (t, id, m) => q.depthOf(t, id, m),
  getMessage: async (t, id, m) => q.getMessage(t, id, m),
  tree: async (t, id) => q.tree(t, id),
  allMessages: async (t, id) => q.allMessages(t, id),
  checkpoints: async (t, id) => q.checkpoints(t, id),
  pendingFailure: async (t, id) => q.pendingFailure(t, id),
});
