import { type Message } from '@arbor/domain';
import { type RecordedEvent } from '@arbor/event-store';
import {
  type CheckpointRow,
  type ConversationListOptions,
  type ConversationListPage,
  type ConversationQueries,
  type ConversationRow,
  type ForkRow,
  type TreeNode,
} from './conversations/queries';

/**
 * The read-model port: what the application reads. The SQLite read models (synchronous,
 * better-sqlite3) and the Redis ones both satisfy it; every call is scoped by tenant.
 */
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
    /** Each item's own seq: a page cut short before item i continues after `seqs[i - 1]`. */
    seqs: number[];
  }>;
  /** The list in one of its orders (keyset pages; see ConversationListOptions). */
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
  /** The last `last` messages of the active branch, root → tip. */
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

/**
 * The write half the projector calls: apply a batch and store the checkpoint together, read the
 * checkpoint back, drop everything (rebuild), and a canonical dump (rebuild equals live).
 * `apply` may be synchronous (SQLite: one transaction) or asynchronous (Redis: MULTI/EXEC).
 */
export interface ReadModelSink {
  readCheckpoint(): bigint | null | Promise<bigint | null>;
  apply(events: readonly RecordedEvent[], position: bigint): void | Promise<void>;
  reset(): void | Promise<void>;
  dump(): string | Promise<string>;
}

/** JSON texts read at once can be megabytes: parsed a slice at a time, the loop free between. */
const PARSE_SLICE_CHARS = 256 * 1024;

export const parseInSlices = async <T>(texts: readonly string[]): Promise<T[]> => {
  const out: T[] = [];
  let chars = 0;
  for (const text of texts) {
    out.push(JSON.parse(text) as T);
    chars += text.length;
    if (chars >= PARSE_SLICE_CHARS) {
      chars = 0;
      await new Promise((r) => setImmediate(r));
    }
  }
  return out;
};

/** The synchronous SQLite queries seen through the async port. */
export const asyncQueries = (q: ConversationQueries): ReadModelQueries => ({
  getConversation: async (t, id) => q.getConversation(t, id),
  listConversations: async (t, after, limit) => q.listConversations(t, after, limit),
  listConversationsBy: async (t, o) => q.listConversationsBy(t, o),
  activeBranchPage: async (t, id, from, limit) => q.activeBranchPage(t, id, from, limit),
  activeBranchTail: async (t, id, last) => q.activeBranchTail(t, id, last),
  depthOf: async (t, id, m) => q.depthOf(t, id, m),
  getMessage: async (t, id, m) => q.getMessage(t, id, m),
  tree: async (t, id) => q.tree(t, id),
  allMessages: async (t, id) => parseInSlices<Message>(q.allMessageTexts(t, id)),
  checkpoints: async (t, id) => q.checkpoints(t, id),
  pendingFailure: async (t, id) => q.pendingFailure(t, id),
});
