/**
 * `ArborSaver`: a LangGraph `BaseCheckpointSaver` over Arbor's HTTP API. A thread and checkpoint
 * namespace are two conversations: the thread's messages as Arbor turns (each message once, in
 * Arbor's tree), and its checkpoints as small records (a record per `put` naming the channel
 * versions, with the values of the channels that changed only; a record per `putWrites`) in the
 * `clientData` of a second conversation's turns. Everything is read back from the two
 * conversations' event logs, so any process with the tenant's key sees the same state.
 */
import { createHash, randomInt } from 'node:crypto';
import { type RunnableConfig } from '@langchain/core/runnables';
import { type BaseMessage } from '@langchain/core/messages';
import {
  BaseCheckpointSaver,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointPendingWrite,
  type CheckpointTuple,
  compareWritesSortKeys,
  maxChannelVersion,
  type PendingWrite,
  type SerializerProtocol,
  TASKS,
  WRITES_IDX_MAP,
  writesSortKey,
} from '@langchain/langgraph-checkpoint';
import {
  type ArborClient,
  ArborProblemError,
  type JsonValue,
  type MessageInput,
} from '@arbor/client';
import { isMessageList, type Serialized, toTurns, type TurnEnd } from './messages';

/** A serde value: JSON kept as JSON (`j`), anything else base64 (`t`, `b`). */
interface Enc {
  j?: JsonValue;
  t?: string;
  b?: string;
}

/** A message channel's value: the Arbor message its path ends on, plus what is not a turn yet. */
interface MessagesRef {
  tip: string | null;
  end: TurnEnd | null;
  pending: JsonValue[];
}

/** A channel's value at one version: a serde value, a message path, or no value. */
type Blob = { v: Enc } | { m: MessagesRef } | { none: true };

type Version = string | number;

interface PutRecord {
  k: 'put';
  /** The checkpoint without `channel_values`. */
  cp: Omit<Checkpoint, 'channel_values'>;
  parent?: string;
  meta: Enc;
  /** The channels of `newVersions`: version and value. */
  blobs: Record<string, [Version, Blob]>;
}

interface WritesRecord {
  k: 'writes';
  cp: string;
  task: string;
  path: string;
  writes: [string, number, Enc][];
}

type RecordOf = PutRecord | WritesRecord;

interface StoredWrite {
  task: string;
  channel: string;
  idx: number;
  path: string;
  value: Enc;
}

/** The thread's checkpoints as read from its records conversation. */
interface ThreadState {
  threadId: string;
  ns: string;
  recordsId: string;
  messagesId: string;
  revision: number;
  checkpoints: Map<string, PutRecord>;
  blobs: Map<string, Blob>;
  writes: Map<string, Map<string, StoredWrite>>;
  messages?: MessagesState;
}

interface MessagesState {
  ready: Promise<void>;
  revision: number;
  nodes: Map<string, { parentId: string | null; json: JsonValue[]; role: string }>;
  children: Map<string, string[]>;
  turnEnds: Map<string, TurnEnd>;
}

export interface ArborSaverOptions {
  /** A client with the tenant's API key: one saver per tenant. */
  client: ArborClient;
  /** Channels whose value, a list of LangChain messages, is kept as Arbor turns. */
  messageChannels?: string[];
  /** Prefix of the conversation ids (default `lg`). */
  idPrefix?: string;
  serde?: SerializerProtocol;
}

const RECORDS_TITLE = 'langgraph checkpoints ';
const MESSAGES_TITLE = 'langgraph ';
/** A serialized record above this goes over Arbor's free-form field limit (1 MiB by default). */
const MAX_RECORD_BYTES = 1_000_000;

const sha = (s: string) => createHash('sha256').update(s).digest('base64url');
const blobKey = (channel: string, version: Version) => `${channel}\u0000${String(version)}`;
const isProblem = (e: unknown, ...codes: string[]): e is ArborProblemError =>
  e instanceof ArborProblemError && codes.includes(e.code);

export class ArborSaver extends BaseCheckpointSaver {
  private readonly client: ArborClient;
  private readonly messageChannels: Set<string>;
  private readonly prefix: string;
  private readonly threads = new Map<string, Promise<ThreadState | null>>();
  private readonly serialized = new WeakMap<BaseMessage, Serialized & { text: string }>();

  constructor(options: ArborSaverOptions) {
    super(options.serde);
    this.client = options.client;
    this.messageChannels = new Set(options.messageChannels ?? ['messages']);
    this.prefix = options.idPrefix ?? 'lg';
  }

  /* ---- the BaseCheckpointSaver interface ---- */

  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const threadId = config.configurable?.thread_id as string | undefined;
    if (threadId === undefined) return undefined;
    const t = await this.thread(threadId, config.configurable?.checkpoint_ns ?? '', false);
    if (!t) return undefined;
    await this.refresh(t);
    const id = (config.configurable?.checkpoint_id as string | undefined) ?? latest(t);
    const record = id === undefined ? undefined : t.checkpoints.get(id);
    return record ? this.tuple(t, record) : undefined;
  }

  async *list(
    config: RunnableConfig,
    options: CheckpointListOptions = {},
  ): AsyncGenerator<CheckpointTuple> {
    const { before, filter } = options;
    let { limit } = options;
    const threadId = config.configurable?.thread_id as string | undefined;
    const ns = config.configurable?.checkpoint_ns as string | undefined;
    const wanted = config.configurable?.checkpoint_id as string | undefined;
    const beforeId = before?.configurable?.checkpoint_id as string | undefined;
    const threads =
      threadId !== undefined && ns !== undefined
        ? [await this.thread(threadId, ns, false)].filter((t): t is ThreadState => t !== null)
        : (await this.enumerate(threadId)).filter((t) => ns === undefined || t.ns === ns);
    for (const t of threads) {
      await this.refresh(t);
      const ids = [...t.checkpoints.keys()].sort().reverse();
      for (const id of ids) {
        if (wanted && id !== wanted) continue;
        if (beforeId && id >= beforeId) continue;
        const record = t.checkpoints.get(id) as PutRecord;
        const metadata = (await this.decode(record.meta)) as Record<string, unknown>;
        if (filter && !Object.entries(filter).every(([k, v]) => metadata[k] === v)) continue;
        if (limit !== undefined) {
          if (limit <= 0) return;
          limit -= 1;
        }
        yield await this.tuple(t, record);
      }
    }
  }

  async put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
  ): Promise<RunnableConfig> {
    const threadId = config.configurable?.thread_id as string | undefined;
    if (threadId === undefined)
      throw new Error('ArborSaver.put: config.configurable.thread_id is required');
    const ns = (config.configurable?.checkpoint_ns as string | undefined) ?? '';
    const t = (await this.thread(threadId, ns, true)) as ThreadState;
    const blobs: Record<string, [Version, Blob]> = {};
    for (const [channel, version] of Object.entries(newVersions)) {
      const value = (checkpoint.channel_values as Record<string, unknown>)[channel];
      let blob: Blob;
      if (value === undefined) blob = { none: true };
      else if (this.messageChannels.has(channel) && isMessageList(value))
        blob = { m: await this.storeMessages(t, value) };
      else blob = { v: await this.encode(value) };
      blobs[channel] = [version, blob];
    }
    const { channel_values: _values, ...cp } = checkpoint;
    const parent = config.configurable?.checkpoint_id as string | undefined;
    const record: PutRecord = {
      k: 'put',
      cp: JSON.parse(JSON.stringify(cp)) as PutRecord['cp'],
      ...(parent !== undefined ? { parent } : {}),
      meta: await this.encode(metadata),
      blobs,
    };
    await this.append(
      t,
      record,
      `checkpoint ${checkpoint.id} step ${metadata.step} (${metadata.source})`,
    );
    return {
      configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: checkpoint.id },
    };
  }

  async putWrites(
    config: RunnableConfig,
    writes: PendingWrite[],
    taskId: string,
    taskPath?: string,
  ): Promise<void> {
    const threadId = config.configurable?.thread_id as string | undefined;
    const checkpointId = config.configurable?.checkpoint_id as string | undefined;
    if (threadId === undefined)
      throw new Error('ArborSaver.putWrites: config.configurable.thread_id is required');
    if (checkpointId === undefined)
      throw new Error('ArborSaver.putWrites: config.configurable.checkpoint_id is required');
    const t = (await this.thread(
      threadId,
      config.configurable?.checkpoint_ns ?? '',
      true,
    )) as ThreadState;
    const stored = t.writes.get(checkpointId);
    const fresh: [string, number, Enc][] = [];
    for (const [i, [channel, value]] of writes.entries()) {
      const idx = WRITES_IDX_MAP[channel] || i;
      // A regular write is kept once per (task, idx); special ones (errors, interrupts) replace.
      if (idx >= 0 && stored?.has(`${taskId},${idx}`)) continue;
      fresh.push([channel, idx, await this.encode(value)]);
    }
    if (fresh.length === 0) return;
    const record: WritesRecord = {
      k: 'writes',
      cp: checkpointId,
      task: taskId,
      path: taskPath ?? '',
      writes: fresh,
    };
    await this.append(
      t,
      record,
      `writes of ${taskId} (${fresh.map((w) => w[0]).join(', ')}) on ${checkpointId}`,
    );
  }

  async deleteThread(threadId: string): Promise<void> {
    for (const t of await this.enumerate(threadId)) {
      for (const id of [t.messagesId, t.recordsId]) {
        try {
          await this.client.call('eraseConversation', { path: { id } });
        } catch (e) {
          if (!isProblem(e, 'conversation_not_found', 'conversation_erased')) throw e;
        }
      }
      this.threads.delete(JSON.stringify([t.threadId, t.ns]));
    }
  }

  /**
   * The next integer plus a random fraction below one half: still increasing, and a fork from
   * an old checkpoint never reuses a version another branch holds (values are found by version).
   */
  override getNextVersion(current: number | undefined): number {
    const n = current === undefined ? 0 : parseInt(String(current), 10);
    return n + 1 + randomInt(1, 2 ** 47) / 2 ** 48;
  }

  /** The two conversations of a thread and namespace (`null` if it has none yet). */
  async conversationsOf(
    threadId: string,
    checkpointNs = '',
  ): Promise<{ messages: string; checkpoints: string } | null> {
    const t = await this.thread(threadId, checkpointNs, false);
    return t ? { messages: t.messagesId, checkpoints: t.recordsId } : null;
  }

  /* ---- reading ---- */

  private async tuple(t: ThreadState, record: PutRecord): Promise<CheckpointTuple> {
    const channelValues: Record<string, unknown> = {};
    for (const [channel, version] of Object.entries(record.cp.channel_versions)) {
      const blob = t.blobs.get(blobKey(channel, version));
      if (!blob || 'none' in blob) continue;
      channelValues[channel] =
        'v' in blob ? await this.decode(blob.v) : await this.readMessages(t, blob.m);
    }
    const checkpoint = {
      ...structuredClone(record.cp),
      channel_values: channelValues,
    } as Checkpoint;
    if (checkpoint.v < 4 && record.parent !== undefined) {
      // Checkpoints before format 4 kept pending sends in the parent's writes.
      const sends = this.ordered(t, record.parent).filter((w) => w.channel === TASKS);
      channelValues[TASKS] = await Promise.all(sends.map((w) => this.decode(w.value)));
      const versions = Object.values(checkpoint.channel_versions);
      checkpoint.channel_versions[TASKS] =
        versions.length > 0 ? maxChannelVersion(...versions) : this.getNextVersion(undefined);
    }
    const configurable = { thread_id: t.threadId, checkpoint_ns: t.ns };
    const pendingWrites: CheckpointPendingWrite[] = [];
    for (const w of this.ordered(t, record.cp.id))
      pendingWrites.push([w.task, w.channel, await this.decode(w.value)]);
    return {
      config: { configurable: { ...configurable, checkpoint_id: record.cp.id } },
      checkpoint,
      metadata: (await this.decode(record.meta)) as CheckpointMetadata,
      ...(record.parent !== undefined
        ? { parentConfig: { configurable: { ...configurable, checkpoint_id: record.parent } } }
        : {}),
      pendingWrites,
    };
  }

  private ordered(t: ThreadState, checkpointId: string): StoredWrite[] {
    const writes = [...(t.writes.get(checkpointId)?.values() ?? [])];
    return writes
      .map((w) => ({ w, key: writesSortKey(w.path, w.task, w.idx) }))
      .sort((a, b) => compareWritesSortKeys(a.key, b.key))
      .map(({ w }) => w);
  }

  /** Reads the records appended since the last read (one call when nothing is new). */
  private async refresh(t: ThreadState): Promise<void> {
    let revision = t.revision;
    for await (const e of this.client.events(t.recordsId, {
      fromRevision: t.revision + 1,
    })) {
      if (e.revision <= revision) continue;
      revision = e.revision;
      if (e.type !== 'MessageAppended') continue;
      const record = ((e.data.message as { clientData?: { lg?: RecordOf } }).clientData ?? {}).lg;
      if (record) apply(t, record);
    }
    t.revision = Math.max(t.revision, revision);
  }

  private async readMessages(t: ThreadState, ref: MessagesRef): Promise<BaseMessage[]> {
    const m = await this.messagesState(t);
    if (ref.tip !== null && !m.nodes.has(ref.tip)) await this.refreshMessages(t, m);
    const path: JsonValue[][] = [];
    for (let id = ref.tip; id !== null;) {
      const node = m.nodes.get(id);
      if (!node) throw new Error(`ArborSaver: message ${id} is not in ${t.messagesId}`);
      path.push(node.json);
      id = node.parentId;
    }
    const all = [...path.reverse().flat(), ...ref.pending];
    return Promise.all(all.map((j) => this.decode({ j }) as Promise<BaseMessage>));
  }

  /* ---- writing ---- */

  /**
   * Stores a message list as turns of the messages conversation and answers the reference to
   * it: the longest path of the tree that already holds its messages is reused (a replay or a
   * fork writes nothing twice), the rest is committed as whole turns, and what is not a whole
   * turn yet (a question without its answer, calls without their results) stays in the record.
   */
  private async storeMessages(t: ThreadState, list: BaseMessage[]): Promise<MessagesRef> {
    const m = await this.messagesState(t);
    await this.refreshMessages(t, m);
    const items = await Promise.all(list.map((msg) => this.serialize(msg)));
    let node: string | null = null;
    let at = 0;
    let base: { id: string | null; at: number; end: TurnEnd | null } = {
      id: null,
      at: 0,
      end: null,
    };
    for (;;) {
      const next: string | undefined = (m.children.get(node ?? '') ?? []).find((c) => {
        const json = (m.nodes.get(c) as { json: JsonValue[] }).json;
        return (
          at + json.length <= items.length &&
          json.every((j, k) => JSON.stringify(j) === items[at + k].text)
        );
      });
      if (next === undefined) break;
      node = next;
      at += (m.nodes.get(next) as { json: JsonValue[] }).json.length;
      const end = m.turnEnds.get(next);
      if (end) base = { id: next, at, end };
    }
    let { id: tip, end } = base;
    let covered = base.at;
    for (const turn of toTurns(items.slice(base.at), end).turns) {
      const turnId = `${this.prefix}t-${sha(JSON.stringify([tip, turn.messages])).slice(0, 40)}`;
      let answer: { messageIds: string[]; tip: string | null };
      try {
        answer = await this.client.commitTurn(t.messagesId, {
          parentId: tip,
          turnId,
          messages: turn.messages,
        });
      } catch (e) {
        // Arbor refused the turn (its rules are stricter than a message list's): keep the rest in the record.
        if (e instanceof ArborProblemError && e.problem.status >= 400 && e.problem.status < 500)
          break;
        throw e;
      }
      let parentId = tip;
      answer.messageIds.forEach((id, k) => {
        addNode(m, id, parentId, clientJson(turn.messages[k]), turn.messages[k].role);
        parentId = id;
      });
      tip = answer.messageIds[answer.messageIds.length - 1];
      m.turnEnds.set(tip, turn.end);
      end = turn.end;
      covered += turn.covers;
    }
    return { tip, end, pending: items.slice(covered).map((s) => s.json) };
  }

  private async append(t: ThreadState, record: RecordOf, summary: string): Promise<void> {
    const text = JSON.stringify(record);
    if (text.length > MAX_RECORD_BYTES)
      throw new Error(`ArborSaver: a record of ${text.length} bytes is over ${MAX_RECORD_BYTES}`);
    const before = t.revision;
    const answer = await this.client.commitTurn(t.recordsId, {
      turnId: `${this.prefix}r-${sha(text).slice(0, 40)}`,
      messages: [
        {
          role: 'user',
          content: [{ type: 'text', text: summary }],
          clientData: { lg: JSON.parse(text) as JsonValue },
        },
        { role: 'assistant', content: [{ type: 'text', text: 'saved' }] },
      ],
    });
    apply(t, record);
    // One turn is three events: when nothing else came in between, the cache is up to date.
    if (!answer.replayed && answer.revision === before + 3) t.revision = answer.revision;
  }

  /* ---- conversations ---- */

  private thread(threadId: string, ns: string, create: boolean): Promise<ThreadState | null> {
    const key = JSON.stringify([threadId, ns]);
    const known = this.threads.get(key);
    if (known) return known;
    const found = this.open(threadId, ns, create);
    this.threads.set(key, found);
    found.then(
      (t) => (t === null ? this.threads.delete(key) : undefined),
      () => this.threads.delete(key),
    );
    return found;
  }

  /** The live generation of the thread's conversations: an erased one is never written again. */
  private async open(threadId: string, ns: string, create: boolean): Promise<ThreadState | null> {
    if (typeof threadId !== 'string' || typeof ns !== 'string')
      throw new Error('ArborSaver: thread_id and checkpoint_ns must be strings');
    const name = JSON.stringify([threadId, ns]);
    if (name.length > 400) throw new Error('ArborSaver: thread_id and checkpoint_ns are too long');
    const hash = sha(name).slice(0, 32);
    for (let gen = 0; gen < 100; gen++) {
      const suffix = gen === 0 ? '' : `-${gen}`;
      const recordsId = `${this.prefix}c-${hash}${suffix}`;
      try {
        if (create)
          await this.client.call('ensureConversation', {
            path: { id: recordsId },
            body: {
              title: RECORDS_TITLE + name,
              metadata: { langgraph: { thread_id: threadId, checkpoint_ns: ns } },
            },
          });
        else await this.client.getConversation(recordsId);
      } catch (e) {
        if (isProblem(e, 'conversation_erased')) continue;
        if (!create && isProblem(e, 'conversation_not_found')) return null;
        throw e;
      }
      return {
        threadId,
        ns,
        recordsId,
        messagesId: `${this.prefix}m-${hash}${suffix}`,
        revision: -1,
        checkpoints: new Map(),
        blobs: new Map(),
        writes: new Map(),
      };
    }
    throw new Error(`ArborSaver: thread ${name} was erased too many times`);
  }

  /** Every thread (of `threadId`, or of the tenant) this saver's conversations hold. */
  private async enumerate(threadId?: string): Promise<ThreadState[]> {
    const q =
      RECORDS_TITLE +
      (threadId === undefined ? '[' : JSON.stringify([threadId]).slice(0, -1) + ',');
    const out: ThreadState[] = [];
    for await (const c of this.client.items('listConversations', { query: { q, limit: 1000 } })) {
      const [thread, ns] = JSON.parse((c.title ?? '').slice(RECORDS_TITLE.length)) as [
        string,
        string,
      ];
      const t = await this.thread(thread, ns, false);
      if (t && t.recordsId === c.id) out.push(t);
    }
    return out;
  }

  private messagesState(t: ThreadState): Promise<MessagesState> {
    if (!t.messages) {
      const m: MessagesState = {
        ready: Promise.resolve(),
        revision: -1,
        nodes: new Map(),
        children: new Map(),
        turnEnds: new Map(),
      };
      m.ready = this.client
        .call('ensureConversation', {
          path: { id: t.messagesId },
          body: {
            title: MESSAGES_TITLE + JSON.stringify([t.threadId, t.ns]),
            metadata: {
              langgraph: { thread_id: t.threadId, checkpoint_ns: t.ns, checkpoints: t.recordsId },
            },
          },
        })
        .then(() => undefined);
      t.messages = m;
    }
    const m = t.messages;
    return m.ready.then(() => m);
  }

  private async refreshMessages(t: ThreadState, m: MessagesState): Promise<void> {
    for await (const e of this.client.events(t.messagesId, {
      fromRevision: m.revision + 1,
    })) {
      if (e.revision <= m.revision) continue;
      m.revision = e.revision;
      if (e.type === 'MessageAppended') {
        const msg = e.data.message as { id: string; parentId: string | null } & MessageInput;
        addNode(m, msg.id, msg.parentId, clientJson(msg), msg.role);
      } else if (e.type === 'TurnCommitted') {
        const tip = (e.data as { tip: string }).tip;
        m.turnEnds.set(tip, m.nodes.get(tip)?.role === 'user' ? 'tool_results' : 'answer');
      }
    }
  }

  /* ---- serde ---- */

  private async serialize(message: BaseMessage): Promise<Serialized & { text: string }> {
    const known = this.serialized.get(message);
    if (known) return known;
    const enc = await this.encode(message);
    if (enc.j === undefined) throw new Error('ArborSaver: a message did not serialize to JSON');
    const json = dropUndefined(enc.j);
    const s = { message, json, text: JSON.stringify(json) };
    this.serialized.set(message, s);
    return s;
  }

  private async encode(value: unknown): Promise<Enc> {
    const [type, bytes] = await this.serde.dumpsTyped(value);
    if (type === 'json') return { j: JSON.parse(Buffer.from(bytes).toString('utf8')) as JsonValue };
    return { t: type, b: Buffer.from(bytes).toString('base64') };
  }

  private async decode(enc: Enc): Promise<unknown> {
    if (enc.j !== undefined) return this.serde.loadsTyped('json', JSON.stringify(enc.j));
    return this.serde.loadsTyped(
      enc.t as string,
      new Uint8Array(Buffer.from(enc.b as string, 'base64')),
    );
  }
}

const addNode = (
  m: MessagesState,
  id: string,
  parentId: string | null,
  json: JsonValue[],
  role: string,
) => {
  if (m.nodes.has(id)) return;
  m.nodes.set(id, { parentId, json, role });
  const siblings = m.children.get(parentId ?? '') ?? [];
  siblings.push(id);
  m.children.set(parentId ?? '', siblings);
};

const clientJson = (message: MessageInput): JsonValue[] => {
  const data = message.clientData as { langgraph?: JsonValue[] } | undefined;
  return data?.langgraph ?? [];
};

/**
 * A message's fields set to `undefined` (serde's `{lc: 2, type: "undefined"}`) are dropped: a
 * message read back has none, so the one fresh from a model would otherwise differ from it.
 */
const dropUndefined = (json: JsonValue): JsonValue => {
  if (Array.isArray(json)) return json.map(dropUndefined);
  if (json === null || typeof json !== 'object') return json;
  const out: Record<string, JsonValue> = {};
  for (const [k, v] of Object.entries(json)) {
    if (v && typeof v === 'object' && !Array.isArray(v) && v.lc === 2 && v.type === 'undefined')
      continue;
    out[k] = dropUndefined(v);
  }
  return out;
};

const latest = (t: ThreadState): string | undefined => [...t.checkpoints.keys()].sort().pop();

/** Folds one record into the thread's state; records are applied in log order. */
const apply = (t: ThreadState, record: RecordOf) => {
  if (record.k === 'put') {
    t.checkpoints.set(record.cp.id, record);
    for (const [channel, [version, blob]] of Object.entries(record.blobs))
      t.blobs.set(blobKey(channel, version), blob);
    return;
  }
  const stored = t.writes.get(record.cp) ?? new Map<string, StoredWrite>();
  t.writes.set(record.cp, stored);
  for (const [channel, idx, value] of record.writes) {
    const key = `${record.task},${idx}`;
    if (idx >= 0 && stored.has(key)) continue;
    stored.set(key, { task: record.task, channel, idx, path: record.path, value });
  }
};
