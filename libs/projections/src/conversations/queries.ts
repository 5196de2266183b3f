import type Database from 'better-sqlite3';
import { type Message } from '@arbor/domain';
import { boundMessageSource, type MessageSource } from './content';

export interface ConversationRow {
  id: string;
  title: string | null;
  metadata: Record<string, unknown> | null;
  tip: string | null;
  revision: number;
  position: number;
  createdAt: string;
  updatedAt: string;
  forkedFrom: { conversationId: string; messageId: string } | null;
  messageCount: number;
  turnCount: number;
  cutAt: string | null;
}

export type ConversationSort = 'created' | 'lastActivity' | 'title';

/** Where a keyset page continues: the last item's sort key and its `seq` (unique, the tiebreak). */
export interface ConversationListKey {
  /** `created`: ''; `lastActivity`: `updatedAt`; `title`: the title or ''. */
  key: string;
  seq: number;
}

export interface ConversationListOptions {
  sort: ConversationSort;
  order: 'asc' | 'desc';
  /** Titles starting with this (UTF-8 byte order); only with `sort: 'title'`. */
  titlePrefix: string | null;
  after: ConversationListKey | null;
  limit: number;
}

export interface ConversationListPage {
  items: ConversationRow[];
  /** Each item's own key: a page cut short before item i continues after `keys[i - 1]`. */
  keys: ConversationListKey[];
  more: boolean;
}

export const listKeyOf = (
  sort: ConversationSort,
  row: { title: string | null; updatedAt: string },
): string =>
  sort === 'created' ? '' : sort === 'lastActivity' ? row.updatedAt : (row.title ?? '');

/** Exclusive upper bound of strings starting with `prefix`: U+10FFFF sorts above every char. */
export const prefixEnd = (prefix: string): string => `${prefix}\u{10FFFF}`;

export interface ForkRow {
  conversationId: string;
  messageId: string;
}

export interface CheckpointRow {
  label: string;
  messageId: string;
  status: 'active' | 'rewound' | 'dropped';
  reason?: string;
  digest?: string;
}

export interface TreeNode {
  id: string;
  parentId: string | null;
  role: string;
  children: string[];
}

interface RawConversation {
  id: string;
  seq: number;
  title: string | null;
  metadata: string | null;
  tip: string | null;
  revision: number;
  position: number;
  created_at: string;
  updated_at: string;
  forked_from_conversation: string | null;
  forked_from_message: string | null;
  message_count: number;
  turn_count: number;
  cut_at: string | null;
}

const toConversation = (r: RawConversation): ConversationRow => ({
  id: r.id,
  title: r.title,
  metadata: r.metadata === null ? null : (JSON.parse(r.metadata) as Record<string, unknown>),
  tip: r.tip,
  revision: r.revision,
  position: r.position,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  forkedFrom:
    r.forked_from_conversation !== null && r.forked_from_message !== null
      ? { conversationId: r.forked_from_conversation, messageId: r.forked_from_message }
      : null,
  messageCount: r.message_count,
  turnCount: r.turn_count,
  cutAt: r.cut_at,
});

export interface BranchWindowCacheOptions {
  /** Budget of the cached windows, counted in bytes of their stored JSON. 0 turns the cache off. */
  maxBytes: number;
  minBytes: number;
}

/** 24 MiB of stored JSON (a 20,000-message branch of ~560-byte messages fits); windows ≥ 64 KiB. */
export const DEFAULT_BRANCH_WINDOW_CACHE: BranchWindowCacheOptions = {
  maxBytes: 24 * 1024 * 1024,
  minBytes: 64 * 1024,
};

type BranchPage = { items: Message[]; nextDepth: number | null };

interface CachedWindow {
  revision: number;
  position: number;
  bytes: number;
  page: BranchPage;
}

/** Served only while revision and position are unchanged; admitted on a second read; frozen. */
const createBranchWindowCache = ({ maxBytes, minBytes }: BranchWindowCacheOptions) => {
  const entries = new Map<string, CachedWindow>();
  const seen = new Map<string, string>();
  let bytes = 0;
  const stampOf = (w: { revision: number; position: number }) => `${w.revision}:${w.position}`;
  return {
    get(key: string, revision: number, position: number): BranchPage | null {
      const hit = entries.get(key);
      if (hit === undefined) return null;
      entries.delete(key);
      if (hit.revision !== revision || hit.position !== position) {
        bytes -= hit.bytes;
        return null;
      }
      entries.set(key, hit);
      return hit.page;
    },
    offer(key: string, window: CachedWindow): void {
      if (maxBytes === 0 || window.bytes < minBytes || window.bytes > maxBytes) return;
      const stamp = stampOf(window);
      if (seen.get(key) !== stamp) {
        seen.delete(key);
        seen.set(key, stamp);
        if (seen.size > 4096) seen.delete(seen.keys().next().value as string);
        return;
      }
      seen.delete(key);
      for (const m of window.page.items) Object.freeze(m);
      Object.freeze(window.page.items);
      entries.set(key, window);
      bytes += window.bytes;
      for (const [k, e] of entries) {
        if (bytes <= maxBytes) break;
        entries.delete(k);
        bytes -= e.bytes;
      }
    },
  };
};

/** Bodies opened per loop turn: 256 KiB gave others a ~1.4x higher p99 during a heavy context call (bench:stall). */
const BODY_SLICE_BYTES = 64 * 1024;

interface BodyRef {
  revision: number;
  bytes: number;
}

export const createConversationQueries = (
  db: Database.Database,
  branchCache: BranchWindowCacheOptions = DEFAULT_BRANCH_WINDOW_CACHE,
  content?: MessageSource,
) => {
  const windows = createBranchWindowCache(branchCache);
  const sourceOf = (): MessageSource => {
    const source = content ?? boundMessageSource(db);
    if (source === undefined) throw new Error('read models: no log to read message bodies from');
    return source;
  };
  // Megabytes of bodies are read in slices with a loop turn between, so others are served.
  const bodiesOf = async (
    tenantId: string,
    id: string,
    refs: readonly BodyRef[],
  ): Promise<Message[]> => {
    const out: Message[] = [];
    for (let start = 0; start < refs.length;) {
      let end = start;
      for (let bytes = 0; end < refs.length && (end === start || bytes < BODY_SLICE_BYTES); end++)
        bytes += refs[end].bytes;
      if (start > 0) await new Promise((r) => setImmediate(r));
      const slice = refs.slice(start, end);
      const found = await sourceOf().messagesAt(
        tenantId,
        id,
        slice.map((r) => r.revision),
      );
      for (const r of slice) {
        const m = found.get(r.revision);
        if (m === undefined)
          throw new Error(`read models: no message at revision ${r.revision} of ${tenantId}/${id}`);
        out.push(m);
      }
      start = end;
    }
    return out;
  };
  const q = {
    stamp: db.prepare(
      `SELECT revision, position FROM rm_conversations WHERE tenant_id = ? AND id = ?`,
    ),
    conversation: db.prepare(`SELECT * FROM rm_conversations WHERE tenant_id = ? AND id = ?`),
    list: db.prepare(
      `SELECT * FROM rm_conversations WHERE tenant_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
    ),
    forks: db.prepare(
      `SELECT fork_id, from_message_id FROM rm_forks WHERE tenant_id = ? AND source_id = ? ORDER BY position`,
    ),
    branchPage: db.prepare(
      `SELECT a.depth, m.id, m.revision, m.bytes FROM rm_active_branch a JOIN rm_messages m
         ON m.tenant_id = a.tenant_id AND m.conversation_id = a.conversation_id AND m.id = a.message_id
       WHERE a.tenant_id = ? AND a.conversation_id = ? AND a.depth >= ? ORDER BY a.depth LIMIT ?`,
    ),
    branchTail: db.prepare(
      `SELECT a.depth, m.id, m.revision, m.bytes FROM rm_active_branch a JOIN rm_messages m
         ON m.tenant_id = a.tenant_id AND m.conversation_id = a.conversation_id AND m.id = a.message_id
       WHERE a.tenant_id = ? AND a.conversation_id = ? ORDER BY a.depth DESC LIMIT ?`,
    ),
    depthOf: db.prepare(
      `SELECT depth FROM rm_messages WHERE tenant_id = ? AND conversation_id = ? AND id = ?`,
    ),
    message: db.prepare(
      `SELECT revision, bytes FROM rm_messages WHERE tenant_id = ? AND conversation_id = ? AND id = ?`,
    ),
    nodes: db.prepare(
      `SELECT id, parent_id, role FROM rm_messages WHERE tenant_id = ? AND conversation_id = ? ORDER BY seq`,
    ),
    allMessages: db.prepare(
      `SELECT revision, bytes FROM rm_messages WHERE tenant_id = ? AND conversation_id = ? ORDER BY seq`,
    ),
    checkpoints: db.prepare(
      `SELECT label, message_id, status, reason, digest FROM rm_checkpoints WHERE tenant_id = ? AND conversation_id = ? ORDER BY label`,
    ),
    digestsOf: db.prepare(
      `SELECT label, digest, revision FROM rm_digests WHERE tenant_id = ? AND conversation_id = ? AND message_id = ? ORDER BY revision`,
    ),
    hasDigests: db.prepare(
      `SELECT 1 FROM rm_digests WHERE tenant_id = ? AND conversation_id = ? LIMIT 1`,
    ),
    pendingFailure: db.prepare(
      `SELECT failure_id, input, error FROM rm_failures WHERE tenant_id = ? AND conversation_id = ? AND pending = 1 ORDER BY revision DESC LIMIT 1`,
    ),
  };

  const getConversation = (
    tenantId: string,
    id: string,
  ): (ConversationRow & { forks: ForkRow[] }) | null => {
    const raw = q.conversation.get(tenantId, id) as RawConversation | undefined;
    if (!raw) return null;
    const forks = (q.forks.all(tenantId, id) as { fork_id: string; from_message_id: string }[]).map(
      (f) => ({
        conversationId: f.fork_id,
        messageId: f.from_message_id,
      }),
    );
    return { ...toConversation(raw), forks };
  };

  /** Cursor = the `seq` of the last row returned (opaque to clients). */
  const listConversations = (tenantId: string, afterSeq: number, limit: number) => {
    const rows = q.list.all(tenantId, afterSeq, limit + 1) as RawConversation[];
    const page = rows.slice(0, limit);
    return {
      items: page.map(toConversation),
      nextSeq: rows.length > limit ? page[page.length - 1].seq : null,
      /** Each item's own seq: a page cut short before item i continues after `seqs[i - 1]`. */
      seqs: page.map((r) => r.seq),
    };
  };

  const sortedStatements = new Map<string, Database.Statement>();
  const SORT_COLUMN: Record<ConversationSort, string> = {
    created: 'seq',
    lastActivity: 'updated_at',
    title: "IFNULL(title, '')",
  };
  /** Keyset pages on the order's index, never OFFSET: page 2,000 costs what page 1 does. */
  const listConversationsBy = (
    tenantId: string,
    o: ConversationListOptions,
  ): ConversationListPage => {
    if (o.titlePrefix !== null && o.sort !== 'title')
      throw new Error('a title prefix needs sort: title');
    const col = SORT_COLUMN[o.sort];
    const cmp = o.order === 'asc' ? '>' : '<';
    const dir = o.order === 'asc' ? 'ASC' : 'DESC';
    const shape = `${o.sort}|${o.order}|${o.titlePrefix !== null}|${o.after !== null}`;
    let st = sortedStatements.get(shape);
    if (st === undefined) {
      const where = ['tenant_id = @tenant'];
      if (o.titlePrefix !== null) where.push(`${col} >= @from AND ${col} < @to`);
      if (o.after !== null)
        where.push(o.sort === 'created' ? `seq ${cmp} @seq` : `(${col}, seq) ${cmp} (@key, @seq)`);
      const order = o.sort === 'created' ? `seq ${dir}` : `${col} ${dir}, seq ${dir}`;
      st = db.prepare(
        `SELECT * FROM rm_conversations WHERE ${where.join(' AND ')} ORDER BY ${order} LIMIT @limit`,
      );
      sortedStatements.set(shape, st);
    }
    const rows = st.all({
      tenant: tenantId,
      limit: o.limit + 1,
      ...(o.titlePrefix !== null ? { from: o.titlePrefix, to: prefixEnd(o.titlePrefix) } : {}),
      ...(o.after !== null
        ? o.sort === 'created'
          ? { seq: o.after.seq }
          : { key: o.after.key, seq: o.after.seq }
        : {}),
    }) as RawConversation[];
    const page = rows.slice(0, o.limit).map((r) => ({ row: toConversation(r), seq: r.seq }));
    return {
      items: page.map((p) => p.row),
      keys: page.map((p) => ({ key: listKeyOf(o.sort, p.row), seq: p.seq })),
      more: rows.length > o.limit,
    };
  };

  /** Root → tip from `fromDepth`; rows and digests read in one step before the bodies, so a page is one moment. */
  const activeBranchPage = async (
    tenantId: string,
    id: string,
    fromDepth: number,
    limit: number,
  ): Promise<BranchPage> => {
    const stamp = q.stamp.get(tenantId, id) as { revision: number; position: number } | undefined;
    const key = `${tenantId}\u0000${id}\u0000${fromDepth}\u0000${limit}`;
    if (stamp !== undefined) {
      const hit = windows.get(key, stamp.revision, stamp.position);
      if (hit !== null) return { items: hit.items.slice(), nextDepth: hit.nextDepth };
    }
    const rows = q.branchPage.all(tenantId, id, fromDepth, limit + 1) as BranchRow[];
    const shown = rows.slice(0, limit);
    const digests = digestsOf(tenantId, id, shown);
    const page = {
      items: withDigests(await bodiesOf(tenantId, id, shown), digests),
      nextDepth: rows.length > limit ? rows[limit].depth : null,
    };
    if (stamp !== undefined) {
      let bytes = 0;
      for (const r of rows) bytes += r.bytes;
      windows.offer(key, {
        ...stamp,
        bytes,
        page: { items: page.items.slice(), nextDepth: page.nextDepth },
      });
    }
    return page;
  };

  type BranchRow = BodyRef & { depth: number; id: string };
  type Digest = { label: string; digest: string; revision: number };

  const digestsOf = (
    tenantId: string,
    id: string,
    rows: readonly BranchRow[],
  ): Map<string, Digest[]> | null => {
    if (q.hasDigests.get(tenantId, id) === undefined) return null;
    const out = new Map<string, Digest[]>();
    for (const r of rows) {
      const digests = q.digestsOf.all(tenantId, id, r.id) as Digest[];
      if (digests.length > 0) out.set(r.id, digests);
    }
    return out;
  };

  const withDigests = (messages: Message[], digests: Map<string, Digest[]> | null) =>
    digests === null
      ? messages
      : messages.map((m) => {
          const d = digests.get(m.id);
          return d === undefined ? m : { ...m, digests: d };
        });

  const activeBranchTail = async (tenantId: string, id: string, last: number) => {
    const rows = (q.branchTail.all(tenantId, id, last) as BranchRow[]).reverse();
    const digests = digestsOf(tenantId, id, rows);
    return {
      items: withDigests(await bodiesOf(tenantId, id, rows), digests),
      nextDepth: null,
    };
  };

  const depthOf = (tenantId: string, id: string, messageId: string): number | null =>
    (q.depthOf.get(tenantId, id, messageId) as { depth: number } | undefined)?.depth ?? null;

  const getMessage = async (
    tenantId: string,
    id: string,
    messageId: string,
  ): Promise<Message | null> => {
    const row = q.message.get(tenantId, id, messageId) as BodyRef | undefined;
    return row ? (await bodiesOf(tenantId, id, [row]))[0] : null;
  };

  const tree = (tenantId: string, id: string): TreeNode[] => {
    const rows = q.nodes.all(tenantId, id) as {
      id: string;
      parent_id: string | null;
      role: string;
    }[];
    const nodes = new Map<string, TreeNode>();
    for (const r of rows)
      nodes.set(r.id, { id: r.id, parentId: r.parent_id, role: r.role, children: [] });
    for (const n of nodes.values())
      if (n.parentId !== null) nodes.get(n.parentId)?.children.push(n.id);
    return [...nodes.values()];
  };

  const allMessages = (tenantId: string, id: string): Promise<Message[]> =>
    bodiesOf(tenantId, id, q.allMessages.all(tenantId, id) as BodyRef[]);

  const checkpoints = (tenantId: string, id: string): CheckpointRow[] =>
    (
      q.checkpoints.all(tenantId, id) as {
        label: string;
        message_id: string;
        status: 'active' | 'rewound' | 'dropped';
        reason: string | null;
        digest: string | null;
      }[]
    ).map((r) => ({
      label: r.label,
      messageId: r.message_id,
      status: r.status,
      ...(r.reason !== null ? { reason: r.reason } : {}),
      ...(r.digest !== null ? { digest: r.digest } : {}),
    }));

  const pendingFailure = (
    tenantId: string,
    id: string,
  ): { failureId: string; input: unknown; error: unknown } | null => {
    const row = q.pendingFailure.get(tenantId, id) as
      { failure_id: string; input: string; error: string } | undefined;
    return row
      ? { failureId: row.failure_id, input: JSON.parse(row.input), error: JSON.parse(row.error) }
      : null;
  };

  return {
    getConversation,
    listConversations,
    listConversationsBy,
    activeBranchPage,
    activeBranchTail,
    depthOf,
    getMessage,
    tree,
    allMessages,
    checkpoints,
    pendingFailure,
  };
};

export type ConversationQueries = ReturnType<typeof createConversationQueries>;
