/**
 * `ArborSessionStore`: the Claude Agent SDK's `SessionStore` over Arbor's HTTP API. One session
 * key (`projectKey`, `sessionId`, `subpath`) is one conversation; its transcript's messages are
 * committed as Arbor turns (the open turn is the conversation's draft), and every entry rides,
 * whole and in order, in the `clientData` of its message, so `load` answers what was appended.
 */
import { createHash } from 'node:crypto';
// The SDK ships ESM only; its types are read as an import's, this package stays CommonJS.
import type {
  SessionKey,
  SessionStore,
  SessionStoreEntry,
} from '@anthropic-ai/claude-agent-sdk' with { 'resolution-mode': 'import' };
import { type ArborClient, ArborProblemError, type MessageInput, isProblem } from '@arbor/client';
import {
  type Carried,
  type Entry,
  type Rendered,
  asPlainTurn,
  carriedBy,
  clientDataOf,
  hashOf,
  plan,
  toInput,
} from './transcript';

export interface ArborSessionStoreOptions {
  /** The client of the tenant whose conversations hold the sessions. */
  client: ArborClient;
  /** First characters of each conversation's title (default `claude-code`). */
  titlePrefix?: string;
}

/** What the store knows of one key's conversation. */
interface State {
  id: string;
  exists: boolean;
  tip: string | null;
  uuids: Set<string>;
  /** The open turn's entries (the draft's), not yet in a committed turn. */
  pending: Entry[];
  draftId: string | null;
}

const CARRIER_TEXT = '(transcript entries that belong to no message yet)';
/** Generations tried after an erased conversation (a deleted session written again). */
const MAX_GENERATIONS = 1000;

/**
 * The entries of a batch not stored yet. `uuid` is the idempotency key (a retry or a replayed
 * import writes nothing twice); a batch is written in order, so what comes before a stored
 * uuid was stored with it, and a batch whose every uuid is stored is a repeat, entries without
 * uuid included. A batch of entries without uuid only is always appended (the contract).
 */
const unwritten = (entries: readonly Entry[], stored: ReadonlySet<string>): Entry[] => {
  let from = 0;
  let uuids = 0;
  let known = 0;
  entries.forEach((e, i) => {
    if (typeof e.uuid !== 'string') return;
    uuids++;
    if (stored.has(e.uuid)) {
      known++;
      from = i + 1;
    }
  });
  if (uuids > 0 && known === uuids) return [];
  const seen = new Set<string>();
  return entries.slice(from).filter((e) => {
    if (typeof e.uuid !== 'string') return true;
    if (stored.has(e.uuid) || seen.has(e.uuid)) return false;
    seen.add(e.uuid);
    return true;
  });
};

/** This process's view of a session is behind what another wrote: read again and redo. */
class StaleState extends Error {}

const keyOf = (k: SessionKey) => JSON.stringify([k.projectKey, k.sessionId, k.subpath ?? null]);

interface Meta {
  projectKey: string;
  sessionId: string;
  subpath?: string;
}

const metaOf = (metadata: unknown): Meta | undefined => {
  if (typeof metadata !== 'object' || metadata === null) return undefined;
  const m = (metadata as { claudeAgentSdk?: unknown }).claudeAgentSdk;
  if (typeof m !== 'object' || m === null) return undefined;
  const { projectKey, sessionId, subpath } = m as Record<string, unknown>;
  if (typeof projectKey !== 'string' || typeof sessionId !== 'string') return undefined;
  return { projectKey, sessionId, ...(typeof subpath === 'string' ? { subpath } : {}) };
};

export class ArborSessionStore implements SessionStore {
  private readonly client: ArborClient;
  private readonly prefix: string;
  private readonly states = new Map<string, State>();
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(options: ArborSessionStoreOptions) {
    this.client = options.client;
    this.prefix = options.titlePrefix ?? 'claude-code';
  }

  /** The conversation id of a key (generation > 0 after the session was deleted). */
  conversationId(key: SessionKey, generation = 0): string {
    const h = createHash('sha256')
      .update(keyOf(key) + (generation > 0 ? `#${generation}` : ''))
      .digest('base64url');
    return `cc_${h.slice(0, 40)}`;
  }

  async append(key: SessionKey, entries: SessionStoreEntry[]): Promise<void> {
    if (entries.length === 0) return;
    await this.serial(key, async () => {
      for (let attempt = 0; ; attempt++) {
        const state = await this.state(key, attempt > 0);
        try {
          await this.write(key, state, entries as Entry[]);
          return;
        } catch (e) {
          // Another writer moved the tip: read again and place the entries after its turns.
          this.states.delete(keyOf(key));
          if (attempt < 3 && (isProblem(e, 'stale_tip') || e instanceof StaleState)) continue;
          throw e;
        }
      }
    });
  }

  async load(key: SessionKey): Promise<SessionStoreEntry[] | null> {
    return this.serial(key, async () => {
      const { state, committed } = await this.read(key);
      this.states.set(keyOf(key), state);
      if (!state.exists) return null;
      const entries = [...committed, ...state.pending];
      return entries.length === 0 ? null : (entries as SessionStoreEntry[]);
    });
  }

  async listSessions(projectKey: string): Promise<Array<{ sessionId: string; mtime: number }>> {
    const out: Array<{ sessionId: string; mtime: number }> = [];
    for (const c of await this.conversationsOf(projectKey, ''))
      if (c.meta.subpath === undefined)
        out.push({ sessionId: c.meta.sessionId, mtime: Math.floor(Date.parse(c.updatedAt)) });
    return out;
  }

  async listSubkeys(key: { projectKey: string; sessionId: string }): Promise<string[]> {
    const out: string[] = [];
    for (const c of await this.conversationsOf(key.projectKey, `${key.sessionId}/`))
      if (c.meta.sessionId === key.sessionId && c.meta.subpath !== undefined)
        out.push(c.meta.subpath);
    return out;
  }

  /**
   * Erases the conversation (Arbor's erasure: its content keys are destroyed); the main
   * transcript's key takes its subagent transcripts with it. Writing the key again starts a
   * new conversation (the erased id stays erased).
   */
  async delete(key: SessionKey): Promise<void> {
    const keys: SessionKey[] = [key];
    if (key.subpath === undefined)
      for (const subpath of await this.listSubkeys(key)) keys.push({ ...key, subpath });
    for (const k of keys)
      await this.serial(k, async () => {
        const state = await this.state(k, true);
        this.states.delete(keyOf(k));
        if (!state.exists) return;
        try {
          await this.client.call('eraseConversation', { path: { id: state.id } });
        } catch (e) {
          if (!isProblem(e, 'conversation_not_found') && !isProblem(e, 'conversation_erased'))
            throw e;
        }
      });
  }

  /* ---- writing ---- */

  private async write(key: SessionKey, state: State, entries: Entry[]): Promise<void> {
    const fresh = unwritten(entries, state.uuids);
    const batch = new Set<string>();
    for (const e of fresh) if (typeof e.uuid === 'string') batch.add(e.uuid);
    if (fresh.length === 0) return;
    if (!state.exists) await this.create(key, state);
    const fromDraft = state.pending.length;
    const { turns, open, trailing } = plan([...state.pending, ...fresh]);
    let consumed = 0;
    for (const [i, turn] of turns.entries()) {
      const last = i === turns.length - 1 && open.length === 0;
      if (last && trailing.length > 0) turn[turn.length - 1].entries.push(...trailing);
      consumed += turn.reduce((n, m) => n + m.entries.length, 0);
      const marker =
        state.draftId !== null
          ? { id: state.draftId, consumed: Math.min(consumed, fromDraft) }
          : undefined;
      await this.commit(state, turn, marker);
    }
    if (open.length > 0) {
      open[open.length - 1].entries.push(...trailing);
      await this.saveDraft(state, toInput(open));
    } else if (turns.length === 0) {
      // Only entries that are no message (titles, tags, markers): a draft message carries them.
      await this.saveDraft(state, [
        {
          role: 'user',
          content: [{ type: 'text', text: CARRIER_TEXT }],
          clientData: clientDataOf({ carrier: true, entries: [...state.pending, ...fresh] }),
        },
      ]);
    } else if (state.draftId !== null) {
      await this.client.call('discardDraft', { path: { id: state.id } });
      state.draftId = null;
      state.pending = [];
    }
    for (const u of batch) state.uuids.add(u);
  }

  private async commit(state: State, turn: Rendered[], marker?: Carried['draft']) {
    const send = async (messages: Rendered[]) => {
      const input = toInput(messages, (i) =>
        i === messages.length - 1 && marker ? { draft: marker } : {},
      );
      return this.client.commitTurn(state.id, {
        // The same turn after the same tip has the same id: a retry is answered, not stored.
        turnId: `t_${hashOf([state.tip, input])}`,
        parentId: state.tip,
        expectedTip: state.tip,
        messages: input,
      });
    };
    let answer;
    try {
      answer = await send(turn);
    } catch (e) {
      // A rendering Arbor refuses (a block its validator does not take, a rule we did not
      // foresee) is stored as plain text; the entries are kept whole either way.
      if (
        e instanceof ArborProblemError &&
        (e.code === 'validation_failed' || e.code === 'invalid_turn')
      )
        answer = await send(asPlainTurn(turn));
      else throw e;
    }
    if (answer.replayed) {
      // The turn was there already: our own lost answer (nothing written since), or another
      // process wrote it, and maybe more after it, which this state has not seen.
      const now = await this.client.getConversation(state.id);
      if (now.revision !== answer.revision || now.tip !== answer.tip) throw new StaleState();
    }
    state.tip = answer.tip;
  }

  private async saveDraft(state: State, messages: MessageInput[]) {
    const draftId = `d_${hashOf([state.tip, messages])}`;
    const save = (m: MessageInput[]) =>
      this.client.call('saveDraft', {
        path: { id: state.id },
        body: { parentId: state.tip, messages: m, draftId },
      });
    try {
      await save(messages);
    } catch (e) {
      if (
        !(e instanceof ArborProblemError) ||
        (e.code !== 'validation_failed' && e.code !== 'invalid_turn')
      )
        throw e;
      const entries = messages.flatMap((m) => carriedBy(m.clientData)?.entries ?? []);
      await save([
        {
          role: 'user',
          content: [{ type: 'text', text: CARRIER_TEXT }],
          clientData: clientDataOf({ carrier: true, entries }),
        },
      ]);
    }
    state.draftId = draftId;
    state.pending = messages.flatMap((m) => carriedBy(m.clientData)?.entries ?? []);
  }

  private async create(key: SessionKey, state: State) {
    for (let generation = 0; generation < MAX_GENERATIONS; generation++) {
      const id = this.conversationId(key, generation);
      try {
        await this.client.call('ensureConversation', {
          path: { id },
          body: { title: this.title(key), metadata: { claudeAgentSdk: { ...key } } },
        });
        state.id = id;
        state.exists = true;
        return;
      } catch (e) {
        if (!isProblem(e, 'conversation_erased')) throw e;
      }
    }
    throw new Error(`session ${keyOf(key)}: every conversation id was erased`);
  }

  /* ---- reading ---- */

  private async state(key: SessionKey, reload: boolean): Promise<State> {
    const k = keyOf(key);
    const known = this.states.get(k);
    if (known !== undefined && !reload) return known;
    const { state } = await this.read(key);
    this.states.set(k, state);
    return state;
  }

  /** The key's live conversation: its tip, every uuid on its active branch, and its draft. */
  private async read(key: SessionKey): Promise<{ state: State; committed: Entry[] }> {
    for (let generation = 0; generation < MAX_GENERATIONS; generation++) {
      const id = this.conversationId(key, generation);
      let tip: string | null;
      try {
        tip = (await this.client.getConversation(id)).tip;
      } catch (e) {
        if (isProblem(e, 'conversation_erased')) continue;
        if (isProblem(e, 'conversation_not_found'))
          return {
            state: { id, exists: false, tip: null, uuids: new Set(), pending: [], draftId: null },
            committed: [],
          };
        throw e;
      }
      const uuids = new Set<string>();
      const committed: Entry[] = [];
      let last: Carried | undefined;
      for await (const m of this.client.messages(id, 1000)) {
        last = carriedBy(m.clientData);
        for (const e of last?.entries ?? []) {
          committed.push(e);
          if (typeof e.uuid === 'string') uuids.add(e.uuid);
        }
      }
      let pending: Entry[] = [];
      let draftId: string | null = null;
      try {
        const draft = await this.client.call('getDraft', { path: { id } });
        const entries = draft.messages.flatMap((m) => carriedBy(m.clientData)?.entries ?? []);
        draftId = draft.draftId;
        if (draft.parentId === tip) pending = entries;
        else if (last?.draft?.id === draft.draftId)
          // A turn was committed from this draft, and the write stopped before the draft was
          // rewritten: the turn took the draft's first `consumed` entries.
          pending = entries.slice(last.draft.consumed);
        else pending = entries.filter((e) => typeof e.uuid !== 'string' || !uuids.has(e.uuid));
      } catch (e) {
        if (!isProblem(e, 'draft_not_found')) throw e;
      }
      for (const e of pending) if (typeof e.uuid === 'string') uuids.add(e.uuid);
      return { state: { id, exists: true, tip, uuids, pending, draftId }, committed };
    }
    throw new Error(`session ${keyOf(key)}: every conversation id was erased`);
  }

  private title(key: SessionKey): string {
    const t = `${this.prefix}/${key.projectKey}/${key.sessionId}${key.subpath ? `/${key.subpath}` : ''}`;
    if (t.length <= 500) return t;
    const short = `${this.titleRoot(key.projectKey)}${key.sessionId}/#${hashOf(keyOf(key))}`;
    return short.length <= 500 ? short : `${this.titleRoot(key.projectKey)}#${hashOf(keyOf(key))}`;
  }

  private titleRoot(projectKey: string): string {
    const t = `${this.prefix}/${projectKey}/`;
    return t.length <= 400 ? t : `${this.prefix}/#${hashOf(projectKey)}/`;
  }

  /** The conversations of a project whose title continues with `rest`, with their key. */
  private async conversationsOf(projectKey: string, rest: string) {
    const root = this.titleRoot(projectKey);
    const q = root.length + rest.length <= 500 ? root + rest : root;
    const out: { meta: Meta; updatedAt: string }[] = [];
    for await (const c of this.client.items('listConversations', {
      query: { q, sort: 'title', limit: 1000 },
    })) {
      const meta = metaOf(c.metadata);
      if (meta !== undefined && meta.projectKey === projectKey)
        out.push({ meta, updatedAt: c.updatedAt });
    }
    return out;
  }

  /** One call at a time per key in this process (appends arrive in order and stay so). */
  private serial<T>(key: SessionKey, run: () => Promise<T>): Promise<T> {
    const k = keyOf(key);
    const before = this.queues.get(k) ?? Promise.resolve();
    const next = before.then(run, run);
    const settled = next.then(
      () => undefined,
      () => undefined,
    );
    this.queues.set(k, settled);
    void settled.then(() => {
      if (this.queues.get(k) === settled) this.queues.delete(k);
    });
    return next;
  }
}
