/**
 * An `@openai/agents` `Session` stored in Arbor.
 *
 * The items a session holds are the active branch's whole turns plus the conversation's draft
 * (the turn in progress). `addItems` commits every whole turn the items complete (a turn ends on
 * an assistant answer without tool calls) and keeps the rest — a run paused for approval
 * (`user + function_call`), a run stopped on a tool result — as the Arbor draft, which is durable
 * and is committed with the rest of its turn when the run resumes. `popItem` moves the tip back
 * one turn and keeps that turn minus its last item as the draft; nothing is deleted.
 */
import { createHash } from 'node:crypto';
import {
  type AgentInputItem,
  type SessionHistoryTransactionArgs,
  type SessionHistoryTransactionAwareSession,
} from '@openai/agents';
import {
  type ArborClient,
  ArborProblemError,
  type Block,
  type BranchMessage,
  isProblem,
  type JsonValue,
  type MessageInput,
} from '@arbor/client';
import { CLIENT_KEY, encodeItem, fromArbor, toArbor } from './mapping';

export interface ArborSessionOptions {
  client: ArborClient;
  /** Your session id: the Arbor conversation id (created on first use). 1-100 of [A-Za-z0-9_-]. */
  sessionId: string;
  /** Stored as `model` on assistant messages: reasoning items go back only to that model family. */
  model?: string;
  /** Title of the conversation when it is created. */
  title?: string;
}

interface Draft {
  parentId: string | null;
  messages: MessageInput[];
}

interface Loaded {
  conversationId: string;
  tip: string | null;
  /** The draft when it hangs on the tip (a draft left behind by a crash elsewhere is ignored). */
  draft: Draft | null;
  /** A draft exists (on the tip or not). */
  anyDraft: boolean;
}

/**
 * What the current run read (`getItems`), moved on by its own writes: its commits build on it
 * and expect its tip, so another writer's commit meanwhile is the server's `stale_tip`.
 */
interface View extends Loaded {
  /** The conversation exists (a session nothing was written to has none yet). */
  exists: boolean;
  /** The role of the tip message, when it was read. */
  tipRole?: string;
  /** How many leading items of the run's model input are committed history, when known. */
  committed?: number;
}

/** How many messages one `?last=` read asks for (the API's page limit). */
const LAST_MAX = 1000;

const isFinalAnswer = (m: MessageInput): boolean =>
  m.role === 'assistant' &&
  !m.content.some((b) => b.type === 'tool_use') &&
  m.content.some((b) => b.type === 'text');

/** The items of a draft: its messages' items, then the trailing ones kept in clientData. */
const draftItems = (draft: Draft): AgentInputItem[] => {
  const items = fromArbor(draft.messages);
  const last = draft.messages[draft.messages.length - 1];
  const trailing = last?.clientData?.[CLIENT_KEY];
  const extra =
    typeof trailing === 'object' && trailing !== null && !Array.isArray(trailing)
      ? (trailing as { trailing?: JsonValue }).trailing
      : undefined;
  return Array.isArray(extra) ? [...items, ...(extra as unknown as AgentInputItem[])] : items;
};

/** What a tool call that was never approved is answered with (as the SDK words a rejection). */
export const NOT_APPROVED =
  'Tool execution was not approved: a new input came before the approval.';

/**
 * A run paused for approval and never resumed leaves calls without results in the draft. When
 * the next items are a new input rather than those results, each such call is answered with
 * a refusal (an error result), so the pause is committed as a turn with the input after it,
 * instead of a turn Arbor must refuse (`unanswered_tool_use`) on every later run.
 */
const refusals = (open: readonly AgentInputItem[], next: readonly AgentInputItem[]) => {
  const answered = new Set<string>();
  for (const item of [...open, ...next])
    if (item.type === 'function_call_result') answered.add(item.callId);
  const first = next[0];
  if (first === undefined || first.type === 'function_call_result') return [];
  if (encodeItem(first).side !== 'user') return [];
  const calls: AgentInputItem[] = [];
  for (let i = open.length - 1; i >= 0 && encodeItem(open[i]).side === 'assistant'; i--) {
    const item = open[i];
    if (item.type === 'function_call' && !answered.has(item.callId))
      calls.unshift({
        type: 'function_call_result',
        callId: item.callId,
        name: item.name,
        status: 'incomplete',
        output: { type: 'text', text: NOT_APPROVED },
      });
  }
  return calls;
};

/** A user message of tool results answering every call of the assistant message before it. */
const endsOnAnsweredResults = (messages: readonly MessageInput[]): boolean => {
  const last = messages[messages.length - 1];
  const before = messages[messages.length - 2];
  if (last?.role !== 'user' || before?.role !== 'assistant') return false;
  if (!last.content.every((b) => b.type === 'tool_result')) return false;
  const answered = new Set(
    last.content.map((b) => (b.type === 'tool_result' ? b.tool_use_id : '')),
  );
  const asked = before.content.flatMap((b) => (b.type === 'tool_use' ? [b.id] : []));
  return asked.length > 0 && asked.every((a) => answered.has(a));
};

const hasTrailing = (draft: Draft): boolean =>
  draftItems(draft).length > fromArbor(draft.messages).length;

const sameMessages = (a: readonly MessageInput[], b: readonly MessageInput[]): boolean =>
  JSON.stringify(a.map((m) => [m.role, m.content])) ===
  JSON.stringify(b.map((m) => [m.role, m.content]));

/** A transaction's record on the messages it wrote: its operation id and a hash of it. */
interface OpMarker {
  [key: string]: JsonValue;
  id: string;
  tx: string;
}

interface StoreOptions {
  /** Build on this message instead of the tip (null: the conversation is new). */
  base?: string | null;
  /** The transaction this write applies. */
  op?: OpMarker;
  /** Commit the whole turns on `base` as a branch and leave the tip where it is; no draft. */
  branch?: true;
}

/**
 * Another writer committed to the session after this run read its history (`getItems`): the
 * run's items were not stacked on a history it never saw. Its whole turns are kept as a branch
 * from the tip it started from (`branch`, in the tree; the tip stays on the other writer's
 * turn); the items that make no whole turn yet are in `items`, stored nowhere.
 */
export class StaleSessionError extends Error {
  readonly code = 'stale_tip';
  constructor(
    /** The tip now (the other writer's). */
    readonly tip: string | null,
    /** The tip the run started from. */
    readonly startedFrom: string | null,
    /** The end of the branch that keeps the run's whole turns, if it had any. */
    readonly branch: string | null,
    /** The run's items that make no whole turn (not stored). */
    readonly items: AgentInputItem[],
  ) {
    super(
      `@arbor/openai-agents: the session moved to ${String(tip)} since this run read it at ${String(startedFrom)}`,
    );
    this.name = 'StaleSessionError';
  }
}

/** The turnId of the k-th turn an operation commits: the same on every retry. */
const derivedId = (operationId: string, k: number): string =>
  `op-${createHash('sha256').update(`${operationId}\n${k}`).digest('hex').slice(0, 48)}`;

const opOf = (m: { clientData?: { [key: string]: JsonValue } }): OpMarker | undefined => {
  const data = m.clientData?.[CLIENT_KEY];
  const op =
    typeof data === 'object' && data !== null && !Array.isArray(data) ? data.op : undefined;
  return typeof op === 'object' && op !== null && !Array.isArray(op) && typeof op.id === 'string'
    ? (op as OpMarker)
    : undefined;
};

/** The JSON form of items (what is stored), for comparing them. */
const snapshot = (v: unknown): string => JSON.stringify(v, Object.keys(flatKeys(v)).sort());
const flatKeys = (v: unknown, acc: Record<string, true> = {}): Record<string, true> => {
  if (Array.isArray(v)) v.forEach((x) => flatKeys(x, acc));
  else if (typeof v === 'object' && v !== null)
    for (const [k, x] of Object.entries(v)) {
      acc[k] = true;
      flatKeys(x, acc);
    }
  return acc;
};

export class ArborSession implements SessionHistoryTransactionAwareSession {
  readonly client: ArborClient;
  readonly sessionId: string;
  private readonly model?: string;
  private readonly title?: string;
  private conversationId: string | null = null;
  /** The session as the current run read it and wrote it since (undefined: read it first). */
  private view: View | undefined;

  constructor(options: ArborSessionOptions) {
    this.client = options.client;
    this.sessionId = options.sessionId;
    this.model = options.model;
    this.title = options.title;
  }

  async getSessionId(): Promise<string> {
    return this.sessionId;
  }

  /** The Arbor conversation holding the session: the session id, made on first use. */
  async currentConversationId(): Promise<string> {
    if (this.conversationId !== null) return this.conversationId;
    await this.client.call('ensureConversation', {
      path: { id: this.sessionId },
      body: this.title ? { title: this.title } : {},
    });
    this.conversationId = this.sessionId;
    return this.sessionId;
  }

  private async load(): Promise<Loaded> {
    const conversationId = await this.currentConversationId();
    try {
      const d = await this.client.call('getDraft', { path: { id: conversationId } });
      const onTip = d.parentId === d.tip;
      return {
        conversationId,
        tip: d.tip,
        draft: onTip ? { parentId: d.parentId, messages: d.messages as MessageInput[] } : null,
        anyDraft: true,
      };
    } catch (e) {
      if (!(e instanceof ArborProblemError) || e.code !== 'draft_not_found') throw e;
    }
    const c = await this.client.getConversation(conversationId);
    return { conversationId, tip: c.tip, draft: null, anyDraft: false };
  }

  /** The last `count` messages of the branch (all when `count` is undefined), root → tip. */
  private async branch(conversationId: string, count?: number): Promise<BranchMessage[]> {
    if (count !== undefined && count <= LAST_MAX) {
      const page = await this.client.call('activeBranch', {
        path: { id: conversationId },
        query: { last: count },
      });
      return page.items;
    }
    const all: BranchMessage[] = [];
    for await (const m of this.client.messages(conversationId, LAST_MAX)) all.push(m);
    return all;
  }

  /**
   * The history and the draft, in two reads (a session never written to: one, and nothing is
   * created until the first write). The run's later commits expect the tip read here.
   */
  async getItems(limit?: number): Promise<AgentInputItem[]> {
    if (limit !== undefined && limit <= 0) return [];
    const id = this.sessionId;
    let answer: { tip: string | null; parentId: string | null; messages: unknown[] } | null = null;
    try {
      answer = await this.client.call('getDraft', { path: { id } });
    } catch (e) {
      if (isProblem(e, 'conversation_not_found')) {
        this.view = { conversationId: id, tip: null, draft: null, anyDraft: false, exists: false };
        this.view.committed = 0;
        return [];
      }
      if (!isProblem(e, 'draft_not_found')) throw e;
    }
    this.conversationId = id; // it exists: no need to create it
    const onTip = answer !== null && answer.parentId === answer.tip;
    let draft: Draft | null =
      answer !== null && onTip
        ? { parentId: answer.parentId, messages: answer.messages as MessageInput[] }
        : null;
    let pending = draft ? draftItems(draft) : [];
    // Every message holds at least one item, so `limit` messages hold at least `limit` items.
    const need = limit === undefined ? undefined : Math.max(limit - pending.length, 0);
    let tip = answer?.tip ?? null;
    let tipRole: string | undefined;
    let history: AgentInputItem[] = [];
    if (need !== 0 && (answer === null || answer.tip !== null)) {
      const read = await this.branch(id, need);
      const last = read[read.length - 1];
      // The branch read is the history the run sees: its last message is the tip it builds on.
      tip = last?.id ?? null;
      tipRole = last?.role;
      if (draft !== null && draft.parentId !== tip) {
        draft = null;
        pending = [];
      }
      history = fromArbor(read as MessageInput[]);
    }
    const all = [...history, ...pending];
    const items = limit === undefined ? all : all.slice(-limit);
    this.view = {
      conversationId: id,
      tip,
      draft,
      anyDraft: answer !== null,
      exists: true,
      tipRole,
      committed: Math.max(items.length - pending.length, 0),
    };
    return items;
  }

  async addItems(items: AgentInputItem[]): Promise<void> {
    if (items.length === 0) return;
    for (const item of items) encodeItem(item); // refuse what cannot be stored before writing
    const state: View = this.view ?? { ...(await this.load()), exists: true };
    if (!state.exists) await this.currentConversationId();
    const id = state.conversationId;
    const open = state.draft ? draftItems(state.draft) : [];
    let base = state.tip;
    let pending: AgentInputItem[] = [];
    try {
      const tipRole =
        state.draft === null && state.tip !== null && encodeItem(items[0]).side === 'user'
          ? (state.tipRole ?? (await this.client.getMessage(id, state.tip)).role)
          : undefined;
      if (tipRole === 'user') {
        // The last turn ended on tool results (a run stopped on one): the new input belongs in
        // that user message, so the turn is committed again with it, on a new branch from the
        // turn's parent (the old turn stays in the tree).
        const { turn, parent } = await this.lastTurn(id);
        pending = [...fromArbor(turn as MessageInput[]), ...items];
        base = parent;
        if (parent !== null) {
          await this.store(state, pending, { base: parent });
          return;
        }
        await this.client.moveTip(id, { messageId: null, expectedTip: state.tip });
        await this.store({ ...state, tip: null, draft: null }, pending);
        return;
      }
      const refused = refusals(open, items);
      pending = [...open, ...refused, ...items];
      const { flushed } = await this.store(state, pending);
      // The refusals are committed but were never in the run's model input.
      if (this.view && state.committed !== undefined)
        this.view.committed =
          state.committed + flushed - (flushed > open.length ? refused.length : 0);
    } catch (e) {
      // The run's first commit expected the tip it read: another writer moved it meanwhile.
      if (isProblem(e, 'stale_tip')) return this.conflict(id, base, pending, e.problem.tip);
      throw e;
    }
  }

  /** Keeps the run's whole turns as a branch from where it started, then throws. */
  private async conflict(
    conversationId: string,
    from: string | null,
    pending: AgentInputItem[],
    tip: string | null,
  ): Promise<never> {
    this.view = undefined;
    let branch: string | null = null;
    let rest = pending;
    // A branch needs a parent: a run that started on an empty session keeps its items in the error.
    if (from !== null) {
      const kept = await this.store(
        { conversationId, tip, draft: null, anyDraft: false },
        pending,
        {
          base: from,
          branch: true,
        },
      );
      if (kept.tip !== from) branch = kept.tip;
      rest = kept.rest;
    }
    throw new StaleSessionError(tip, from, branch, rest);
  }

  /** The last turn of the branch (the tail sharing the tip's turnId) and its parent. */
  private async lastTurn(id: string): Promise<{ turn: BranchMessage[]; parent: string | null }> {
    let tail = await this.branch(id, 64);
    const turnId = tail[tail.length - 1].turnId;
    if (tail.length === 64 && tail.every((m) => m.turnId === turnId)) tail = await this.branch(id);
    let first = tail.length - 1;
    while (first > 0 && tail[first - 1].turnId === turnId) first--;
    const turn = tail.slice(first);
    return { turn, parent: turn[0].parentId };
  }

  /**
   * Commit the whole turns at the start of `pending` (the items after the tip), keep the rest as
   * the draft on the new tip.
   */
  private async store(
    state: Loaded & { tipRole?: string },
    pending: readonly AgentInputItem[],
    options: StoreOptions = {},
  ): Promise<{ tip: string | null; rest: AgentInputItem[]; flushed: number }> {
    const id = state.conversationId;
    // Where the items go on: the tip, or an earlier turn's end (a suffix replaced).
    const base = options.base !== undefined ? options.base : state.tip;
    let tip = base;
    let current = state.tip;
    const before = state.tip;
    let draft = base === state.tip ? state.draft : null;
    let anyDraft = state.anyDraft;
    let start = 0;
    let turns = 0;
    let tipRole = base === state.tip ? state.tipRole : undefined;
    const flush = async (end: number) => {
      const turn = toArbor(pending.slice(start, end), { model: this.model });
      if (options.op) turn[0].clientData = { [CLIENT_KEY]: { op: options.op } };
      const turnId = options.op
        ? derivedId(options.op.id, turns++)
        : globalThis.crypto.randomUUID();
      if (
        draft !== null &&
        !hasTrailing(draft) &&
        draft.messages.length < turn.length &&
        sameMessages(draft.messages, turn.slice(0, draft.messages.length))
      ) {
        // The draft is the start of this turn: commit it with the rest, atomically.
        const done = await this.client.call('commitDraft', {
          path: { id },
          body: { messages: turn.slice(draft.messages.length), expectedTip: current, turnId },
          retry: true,
        });
        anyDraft = false;
        tip = done.tip;
      } else {
        const done = await this.client.commitTurn(id, {
          messages: turn,
          parentId: tip,
          ...(options.branch ? {} : { expectedTip: current }),
          turnId,
        });
        tip = done.tip;
      }
      current = tip;
      draft = null;
      start = end;
      tipRole = turn[turn.length - 1].role;
    };
    // A turn closes after the last assistant-side item of a message that answers (text, no calls).
    const sides = pending.map((item) => encodeItem(item));
    let group: Block[] = [];
    for (let i = 0; i < pending.length; i++) {
      if (sides[i].side !== 'assistant') {
        group = [];
        continue;
      }
      group.push(...sides[i].blocks);
      const next = sides[i + 1];
      if (next !== undefined && next.side === 'assistant') continue;
      if (isFinalAnswer({ role: 'assistant', content: group })) await flush(i + 1);
    }
    // Items ending on tool results that answer every call of the batch end a turn too.
    if (start < pending.length && endsOnAnsweredResults(toArbor(pending.slice(start))))
      await flush(pending.length);
    const rest = pending.slice(start);
    if (options.branch) {
      // Each commit moved the tip onto the branch: put it back where the other writer left it.
      if (tip !== base) await this.client.moveTip(id, { messageId: before, expectedTip: tip });
      return { tip, rest, flushed: start };
    }
    // Draft first, then the tip: a crash in between leaves a draft off the tip, which is ignored.
    let saved: Draft | null = null;
    if (rest.length > 0) {
      saved = { parentId: tip, messages: await this.saveDraft(id, tip, rest, options.op) };
      anyDraft = true;
    } else if (anyDraft) {
      await this.client.call('discardDraft', { path: { id } });
      anyDraft = false;
    }
    if (tip !== current && tip !== null) {
      await this.client.moveTip(id, { messageId: tip, expectedTip: current });
    }
    this.view = { conversationId: id, tip, draft: saved, anyDraft, exists: true, tipRole };
    return { tip, rest, flushed: start };
  }

  /**
   * Save `items` (a turn in progress) as the draft on `parentId`. Tool results that answer only
   * part of a parallel batch (a pop into the middle of one) cannot be an Arbor message yet: they
   * are kept, as items, in the clientData of the draft's last message.
   */
  private async saveDraft(
    id: string,
    parentId: string | null,
    items: readonly AgentInputItem[],
    op?: OpMarker,
  ) {
    let split = items.length;
    const messages = toArbor(items, { model: this.model });
    const last = messages[messages.length - 1];
    const before = messages[messages.length - 2];
    if (last?.role === 'user' && before?.role === 'assistant') {
      const asked = before.content.flatMap((b) => (b.type === 'tool_use' ? [b.id] : []));
      const answered = new Set(
        last.content.flatMap((b) => (b.type === 'tool_result' ? [b.tool_use_id] : [])),
      );
      if (asked.some((a) => !answered.has(a))) {
        messages.pop();
        split = items.length - fromArbor([last]).length;
      }
    }
    const trailing = items.slice(split);
    if (trailing.length > 0 || op) {
      const top = messages[messages.length - 1];
      top.clientData = {
        [CLIENT_KEY]: {
          ...(trailing.length > 0
            ? { trailing: JSON.parse(JSON.stringify(trailing)) as JsonValue }
            : {}),
          ...(op ? { op } : {}),
        },
      };
    }
    await this.client.call('saveDraft', { path: { id }, body: { parentId, messages } });
    return messages;
  }

  async popItem(): Promise<AgentInputItem | undefined> {
    this.view = undefined; // acts on the session as it is now
    const state = await this.load();
    const id = state.conversationId;
    if (state.draft !== null) {
      const items = draftItems(state.draft);
      const popped = items.pop();
      if (items.length > 0) await this.saveDraft(id, state.draft.parentId, items);
      else await this.client.call('discardDraft', { path: { id } });
      return popped;
    }
    if (state.tip === null) return undefined;
    const { turn, parent } = await this.lastTurn(id);
    const items = fromArbor(turn as MessageInput[]);
    const popped = items.pop();
    if (parent === null) {
      // The first turn: the tip moves to none (the turn stays in the tree), and what is left of
      // it becomes the draft of a new root.
      if (state.anyDraft) await this.client.call('discardDraft', { path: { id } });
      await this.client.moveTip(id, { messageId: null, expectedTip: state.tip });
      if (items.length > 0) await this.saveDraft(id, null, items);
      return popped;
    }
    // Draft first, then the tip: a crash in between leaves a draft off the tip, which is ignored.
    if (items.length > 0) await this.saveDraft(id, parent, items);
    else if (state.anyDraft) await this.client.call('discardDraft', { path: { id } });
    await this.client.moveTip(id, { messageId: parent, expectedTip: state.tip });
    return popped;
  }

  /** Empty the session: the tip moves to none and the draft goes; every message stays in the tree. */
  async clearSession(): Promise<void> {
    this.view = undefined; // acts on the session as it is now
    const state = await this.load();
    const id = state.conversationId;
    if (state.anyDraft) await this.client.call('discardDraft', { path: { id } });
    if (state.tip !== null) {
      await this.client.moveTip(id, { messageId: null, expectedTip: state.tip });
    }
  }

  /**
   * The SDK's atomic, idempotent history change (`SessionHistoryTransactionAwareSession`). The
   * operation id becomes the `turnId` of each turn it commits (`op-<sha256>`, the same on every
   * retry) and is recorded, with a hash of the transaction, in the clientData of the messages
   * it wrote: repeating it is a no-op, reusing it for another transaction throws, both checked
   * against the draft and the branch's last 64 messages. `replace_suffix` checks the suffix, then
   * builds on the end of the last turn before it (a new branch: the old turns stay in the tree).
   */
  async applyHistoryTransaction(args: SessionHistoryTransactionArgs): Promise<void> {
    const { operationId, transaction } = args;
    if (typeof operationId !== 'string' || operationId.trim() === '')
      throw new Error('@arbor/openai-agents: operationId must be a non-empty string');
    if (transaction.type !== 'append_items' && transaction.type !== 'replace_suffix')
      throw new Error('@arbor/openai-agents: unsupported session history transaction');
    const items =
      transaction.type === 'append_items'
        ? transaction.items
        : [...transaction.expectedSuffix, ...transaction.replacement];
    for (const item of items) encodeItem(item); // refuse what cannot be stored before writing
    const op: OpMarker = {
      id: operationId,
      tx: createHash('sha256').update(snapshot(transaction)).digest('hex'),
    };
    const state = await this.load();
    const recent: { clientData?: { [key: string]: JsonValue } }[] = [
      ...(state.draft?.messages ?? []),
      ...(state.tip === null ? [] : await this.branch(state.conversationId, 64)),
    ];
    const seen = recent.map(opOf).find((o) => o?.id === operationId);
    if (seen !== undefined) {
      if (seen.tx !== op.tx)
        throw new Error(
          '@arbor/openai-agents: this operationId was applied with a different transaction',
        );
      return;
    }
    if (transaction.type === 'append_items') {
      if (transaction.items.length === 0) return;
      const pending = [...(state.draft ? draftItems(state.draft) : []), ...transaction.items];
      await this.store(state, pending, { op });
      return;
    }
    // replace_suffix: the current items must end with expectedSuffix.
    const history =
      state.tip === null ? [] : ((await this.branch(state.conversationId)) as BranchMessage[]);
    const current = [
      ...fromArbor(history as MessageInput[]),
      ...(state.draft ? draftItems(state.draft) : []),
    ];
    const k = transaction.expectedSuffix.length;
    if (
      k > current.length ||
      snapshot(current.slice(current.length - k)) !==
        snapshot(JSON.parse(JSON.stringify(transaction.expectedSuffix)))
    )
      throw new Error('@arbor/openai-agents: the session no longer ends with the expected suffix');
    const keep = current.length - k;
    // The last turn that ends at or before `keep` items: the new items go on from its end.
    let base: string | null = null;
    let counted = 0;
    for (let i = 0; i < history.length;) {
      let j = i;
      while (j + 1 < history.length && history[j + 1].turnId === history[i].turnId) j++;
      const n = fromArbor(history.slice(i, j + 1) as MessageInput[]).length;
      if (counted + n > keep) break;
      counted += n;
      base = history[j].id;
      i = j + 1;
    }
    const pending = [...current.slice(counted, keep), ...transaction.replacement];
    if (base === null && state.tip !== null) {
      // Everything is replaced: the tip moves to none (the old turns stay in the tree) and the
      // replacement starts a new root.
      await this.client.moveTip(state.conversationId, {
        messageId: null,
        expectedTip: state.tip,
      });
      await this.store(
        { conversationId: state.conversationId, tip: null, draft: null, anyDraft: state.anyDraft },
        pending,
        { op },
      );
      return;
    }
    await this.store(state, pending, { base, op });
  }

  /** The tip the current run's history builds on (undefined: not read yet). */
  runTip(): string | null | undefined {
    return this.view?.tip;
  }

  /**
   * How many leading items of the current run's model input are committed history: what its
   * `getItems` read plus what it committed since (read afresh when not known).
   */
  async committedItemCount(): Promise<number> {
    if (this.view?.committed !== undefined) return this.view.committed;
    const state = await this.load();
    if (state.tip === null) return 0;
    return fromArbor((await this.branch(state.conversationId)) as MessageInput[]).length;
  }
}
