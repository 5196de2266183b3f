import { type ConversationEvent, type Message } from '@arbor/domain';
import { parseStreamName, type RecordedEvent } from '@arbor/event-store';
import { CONVERSATION_ERASED } from '../conversations/apply';
import { type ReadModelSink } from '../read-model-port';
import { type RedisClient } from './connection';
import { dropGeneration, scanKeys } from './generations';
import {
  controlTag,
  ERASED_PARTS,
  generationKey,
  loadConversation,
  loadFailure,
  type MessageMeta,
  projectorCheckpointKey,
  readModelKeys,
  sortedMembers,
  type StoredCheckpoint,
  type StoredFailure,
  byLabel,
} from './keys';
import {
  APPLY_CONVERSATION_SCRIPT,
  APPLY_SHA,
  CHECKPOINT_SCRIPT,
  CHECKPOINT_SHA,
  ERASE_CONVERSATION_SCRIPT,
  ERASE_SHA,
  FORK_ADD_SCRIPT,
  FORK_ADD_SHA,
  FORK_REMOVE_SCRIPT,
  FORK_REMOVE_SHA,
  LIST_REMOVE_SCRIPT,
  LIST_REMOVE_SHA,
  LIST_UPDATE_SCRIPT,
  LIST_UPDATE_SHA,
  runScript,
} from './scripts';

export interface RedisReadModelOptions {
  client: RedisClient;
  prefix: string;
  generation: string;
  name?: string;
  /** The checkpoint is written only while this generation is live… */
  guardGeneration?: string;
  /** …and the partition's lease must still hold exactly this value (`<workerId>:<token>`). */
  fence?: () => { leaseKey: string; leaseValue: string; token: number } | null;
}

export class FencedError extends Error {
  constructor(
    readonly reason: 'lease' | 'generation',
    message: string,
  ) {
    super(message);
    this.name = 'FencedError';
  }
}

type Command = string[];

interface ConversationWrite {
  keys: string[];
  storedRevision: number;
  commands: Command[];
  /** Creation score `''` when listed already. */
  list: {
    t: string;
    c: string;
    score: string;
    before: { activity: string; title: string } | null;
    now: { activity: string; title: string };
  };
  forks: { keys: string[]; fork: string; value: string }[];
}

export const createRedisSink = (options: RedisReadModelOptions): ReadModelSink => {
  const { client, prefix, generation } = options;
  const keys = readModelKeys(prefix, generation);
  const { base, conv } = keys;
  const listKey = keys.list;
  const goneKey = keys.gone;
  const forkKeys = keys.forks;
  const sortedKey = keys.sorted;
  const checkpointKey = projectorCheckpointKey(prefix, generation, options.name ?? 'readmodels');

  const getConv = (t: string, c: string) => loadConversation(client, conv(t, c));

  /** Every key at once, leaving the content-free `:erased` marker; then its list entries. */
  const eraseConversation = async (t: string, c: string, erasure: RecordedEvent) => {
    const k = conv(t, c);
    const row = await getConv(t, c);
    const reason = (erasure.data as { reason?: unknown } | null)?.reason;
    await runScript(
      client,
      ERASE_CONVERSATION_SCRIPT,
      [`${k}:erased`, ...ERASED_PARTS.map((part) => `${k}:${part}`)],
      [
        JSON.stringify({
          revision: Number(erasure.revision),
          erasedAt: erasure.metadata.timestamp,
          reason: typeof reason === 'string' ? reason : '',
        }),
      ],
      ERASE_SHA,
    );
    const m = row === null ? null : sortedMembers(row);
    await runScript(
      client,
      LIST_REMOVE_SCRIPT,
      [listKey(t), goneKey(t), sortedKey(t, 'lastActivity'), sortedKey(t, 'title')],
      [c, m?.activity ?? '', m?.title ?? ''],
      LIST_REMOVE_SHA,
    );
    if (row?.ffc) {
      await runScript(client, FORK_REMOVE_SCRIPT, forkKeys(t, row.ffc), [c], FORK_REMOVE_SHA);
    }
  };

  const applyConversation = async (
    t: string,
    c: string,
    events: readonly RecordedEvent[],
  ): Promise<ConversationWrite | null> => {
    const k = conv(t, c);
    // An erased conversation keeps no keys; nothing before or after its erasure is applied again.
    if ((await client.exists(`${k}:erased`)) === 1) return null;
    const erasure = events.find((e) => e.type === CONVERSATION_ERASED);
    if (erasure !== undefined) {
      await eraseConversation(t, c, erasure);
      return null;
    }
    let row = await getConv(t, c);
    const listedBefore = row === null ? null : sortedMembers(row);
    const storedRevision = row === null ? -1 : row.revision;
    const out: Command[] = [];
    const fresh = events.filter((e) => (row === null ? true : Number(e.revision) > row.revision));
    if (fresh.length === 0) {
      if (row === null) return null;
      // Redelivered: a crash may have come before the other slots' (idempotent) writes.
      return {
        keys: [`${k}:conv`, `${k}:fence`, `${k}:erased`],
        storedRevision: row.revision,
        commands: [],
        list: { t, c, score: String(row.seq), before: listedBefore, now: sortedMembers(row) },
        forks:
          row.ffc === null || row.ffm === null
            ? []
            : [
                {
                  keys: forkKeys(t, row.ffc),
                  fork: c,
                  value: JSON.stringify({ from: row.ffm, position: row.seq }),
                },
              ],
      };
    }

    const metas = new Map<string, MessageMeta>();
    const newMetas = new Map<string, MessageMeta>();
    const bodies = new Map<string, string>();
    const cps = new Map<string, StoredCheckpoint>();
    const failures = new Map<string, StoredFailure>();
    const digests = new Map<string, string>();
    const forks: { source: string; fork: string; from: string; position: number }[] = [];
    let listed: number | null = null;

    const storedLength = await client.lLen(`${k}:branch`);
    let keep = storedLength;
    let appended: string[] = [];
    const storedAt = new Map<number, string | null>();
    const activeAt = async (depth: number): Promise<string | null> => {
      if (depth < keep) {
        if (!storedAt.has(depth)) storedAt.set(depth, await client.lIndex(`${k}:branch`, depth));
        return storedAt.get(depth) ?? null;
      }
      return appended[depth - keep] ?? null;
    };
    const branchLength = () => keep + appended.length;
    const truncate = (depth: number) => {
      const n = depth + 1;
      if (n < keep) {
        keep = n;
        appended = [];
      } else appended = appended.slice(0, n - keep);
    };
    const push = (id: string) => appended.push(id);

    const meta = async (id: string): Promise<MessageMeta | null> => {
      const known = metas.get(id);
      if (known) return known;
      const raw = await client.hGet(`${k}:msgs`, id);
      if (raw === null) return null;
      const m = JSON.parse(raw) as MessageMeta;
      metas.set(id, m);
      return m;
    };

    const moveActiveBranch = async (tip: string | null): Promise<void> => {
      if (tip === null) {
        truncate(-1);
        return;
      }
      const path: { id: string; depth: number }[] = [];
      let id: string | null = tip;
      let ancestorDepth = -1;
      while (id !== null) {
        const m = await meta(id);
        if (!m) throw new Error(`projection: message ${id} of ${t}/${c} is unknown`);
        if ((await activeAt(m.depth)) === id) {
          ancestorDepth = m.depth;
          break;
        }
        path.push({ id, depth: m.depth });
        id = m.parentId;
      }
      truncate(ancestorDepth);
      for (let i = path.length - 1; i >= 0; i--) push(path[i].id);
    };

    const checkpoint = async (label: string, value: StoredCheckpoint) => {
      cps.set(label, value);
    };

    for (const recorded of fresh) {
      const revision = Number(recorded.revision);
      const position = Number(recorded.position);
      const at = recorded.metadata.timestamp;
      const event = { type: recorded.type, data: recorded.data } as ConversationEvent;
      if (event.type === 'ConversationStarted') {
        if (row !== null) continue;
        row = {
          id: c,
          seq: position,
          title: event.data.title ?? null,
          metadata:
            event.data.metadata === undefined || event.data.metadata === null
              ? null
              : JSON.stringify(event.data.metadata),
          tip: null,
          revision,
          position,
          createdAt: at,
          updatedAt: at,
          ffc: event.data.forkedFrom?.conversationId ?? null,
          ffm: event.data.forkedFrom?.messageId ?? null,
          messageCount: 0,
          turnCount: 0,
          cutAt: null,
          pending: [],
        };
        listed = position;
        if (event.data.forkedFrom) {
          forks.push({
            source: event.data.forkedFrom.conversationId,
            fork: c,
            from: event.data.forkedFrom.messageId,
            position,
          });
        }
        continue;
      }
      if (row === null) throw new Error(`projection: ${t}/${c} has events before its start`);
      row.revision = revision;
      row.position = position;
      row.updatedAt = at;
      switch (event.type) {
        case 'MessageAppended': {
          const m: Message = event.data.message;
          const parentDepth = m.parentId === null ? -1 : ((await meta(m.parentId))?.depth ?? null);
          if (parentDepth === null)
            throw new Error(`projection: parent ${m.parentId} of ${m.id} is unknown`);
          row.messageCount += 1;
          const stored: MessageMeta = {
            parentId: m.parentId,
            role: m.role,
            depth: parentDepth + 1,
            seq: row.messageCount,
            turnId: m.turnId,
          };
          metas.set(m.id, stored);
          newMetas.set(m.id, stored);
          bodies.set(m.id, JSON.stringify(m));
          break;
        }
        case 'TurnCommitted': {
          const { tip, parentId, messageIds } = event.data;
          row.turnCount += 1;
          row.tip = tip;
          for (const id of row.pending) {
            const f = failures.get(id) ?? (await failureOf(k, id));
            if (f) failures.set(id, { ...f, pending: false });
          }
          row.pending = [];
          // On the tip: append the turn's messages without walking (as the SQLite apply does).
          const length = branchLength();
          const last = length === 0 ? null : await activeAt(length - 1);
          const onTip = parentId === null ? length === 0 : last === parentId;
          const tipMeta =
            messageIds.length > 0 ? metas.get(messageIds[messageIds.length - 1]) : undefined;
          if (onTip && tipMeta !== undefined && tipMeta.depth === length - 1 + messageIds.length) {
            for (const id of messageIds) push(id);
          } else {
            await moveActiveBranch(tip);
          }
          break;
        }
        case 'TipMoved':
          if (event.data.reason === 'fork') {
            const all = await client.hGetAll(`${k}:msgs`);
            const turns = new Set<string>();
            for (const raw of Object.values(all))
              turns.add((JSON.parse(raw) as MessageMeta).turnId);
            for (const m of newMetas.values()) turns.add(m.turnId);
            row.turnCount = turns.size;
          }
          row.tip = event.data.to;
          await moveActiveBranch(event.data.to);
          break;
        case 'CheckpointSet':
          await checkpoint(event.data.label, {
            messageId: event.data.messageId,
            status: 'active',
            reason: null,
            digest: null,
            revision,
          });
          break;
        case 'CheckpointRewound':
          await checkpoint(event.data.label, {
            messageId: event.data.messageId,
            status: 'rewound',
            reason: null,
            digest: event.data.digest ?? null,
            revision,
          });
          if (event.data.digest) {
            digests.set(
              String(revision),
              JSON.stringify({
                messageId: event.data.messageId,
                label: event.data.label,
                digest: event.data.digest,
              }),
            );
          }
          break;
        case 'CheckpointDropped':
          await checkpoint(event.data.label, {
            messageId: event.data.messageId,
            status: 'dropped',
            reason: event.data.reason,
            digest: null,
            revision,
          });
          break;
        case 'RunResumed':
          row.cutAt = event.data.cutAt;
          break;
        case 'TurnFailed':
          failures.set(event.data.failureId, {
            input: JSON.stringify(event.data.input),
            error: JSON.stringify(event.data.error),
            revision,
            pending: true,
          });
          row.pending.push(event.data.failureId);
          break;
        default:
          break;
      }
    }
    if (row === null) return null;

    out.push(['SET', `${k}:conv`, JSON.stringify(row)]);
    for (const [id, m] of newMetas) {
      out.push(['HSET', `${k}:msgs`, id, JSON.stringify(m)]);
      out.push(['HSET', `${k}:bodies`, id, bodies.get(id) as string]);
      out.push(['ZADD', `${k}:order`, String(m.seq), id]);
    }
    if (keep < storedLength) {
      if (keep === 0) out.push(['DEL', `${k}:branch`]);
      else out.push(['LTRIM', `${k}:branch`, '0', String(keep - 1)]);
    }
    for (let i = 0; i < appended.length; i += 1000)
      out.push(['RPUSH', `${k}:branch`, ...appended.slice(i, i + 1000)]);
    for (const [label, cp] of cps) out.push(['HSET', `${k}:cps`, label, JSON.stringify(cp)]);
    for (const [id, f] of failures) out.push(['HSET', `${k}:failures`, id, JSON.stringify(f)]);
    for (const [rev, d] of digests) out.push(['HSET', `${k}:digests`, rev, d]);

    return {
      keys: [`${k}:conv`, `${k}:fence`, `${k}:erased`, ...new Set(out.map((cmd) => cmd[1]))],
      storedRevision,
      commands: out,
      list: {
        t,
        c,
        score: listed === null ? '' : String(listed),
        before: listedBefore,
        now: sortedMembers(row),
      },
      forks: forks.map((f) => ({
        keys: forkKeys(t, f.source),
        fork: f.fork,
        value: JSON.stringify({ from: f.from, position: f.position }),
      })),
    };
  };

  const failureOf = (k: string, id: string) => loadFailure(client, k, id);

  return {
    readCheckpoint: async () => {
      const raw = await client.get(checkpointKey);
      return raw === null ? null : BigInt(raw);
    },
    apply: async (events, position) => {
      // Conversations in order of first appearance; each one's events stay in log order.
      const groups = new Map<string, { t: string; c: string; events: RecordedEvent[] }>();
      for (const e of events) {
        const parts = parseStreamName(e.streamName);
        if (!parts || parts.category !== 'conv') continue;
        const key = `${parts.tenantId}\u0000${parts.entityId}`;
        let g = groups.get(key);
        if (!g) {
          g = { t: parts.tenantId, c: parts.entityId, events: [] };
          groups.set(key, g);
        }
        g.events.push(e);
      }
      const writes: ConversationWrite[] = [];
      for (const g of groups.values()) {
        const w = await applyConversation(g.t, g.c, g.events);
        if (w !== null) writes.push(w);
      }
      const fence = options.fence?.() ?? null;
      if (options.fence && fence === null) throw new FencedError('lease', 'no lease held');
      const token = fence === null ? '' : String(fence.token);
      try {
        // 1. Each conversation in its own slot (independent of each other: sent together).
        await Promise.all(
          writes.map((w) => {
            const args = [String(w.storedRevision), token];
            for (const cmd of w.commands) args.push(String(cmd.length), ...cmd);
            return runScript(client, APPLY_CONVERSATION_SCRIPT, w.keys, args, APPLY_SHA);
          }),
        );
        // 2. The tenant lists and forks entries (monotonic: never undo an erasure).
        await Promise.all(
          writes.flatMap((w) => [
            runScript(
              client,
              LIST_UPDATE_SCRIPT,
              [
                listKey(w.list.t),
                goneKey(w.list.t),
                sortedKey(w.list.t, 'lastActivity'),
                sortedKey(w.list.t, 'title'),
              ],
              [
                w.list.score,
                w.list.c,
                w.list.before?.activity ?? '',
                w.list.before?.title ?? '',
                w.list.now.activity,
                w.list.now.title,
              ],
              LIST_UPDATE_SHA,
            ),
            ...w.forks.map((f) =>
              runScript(client, FORK_ADD_SCRIPT, f.keys, [f.fork, f.value], FORK_ADD_SHA),
            ),
          ]),
        );
        // 3. The checkpoint, checked against the live generation and the lease.
        await runScript(
          client,
          CHECKPOINT_SCRIPT,
          fence === null
            ? [checkpointKey, generationKey(prefix)]
            : [checkpointKey, generationKey(prefix), fence.leaseKey],
          [options.guardGeneration ?? '', fence?.leaseValue ?? '', position.toString()],
          CHECKPOINT_SHA,
        );
      } catch (e) {
        const text = e instanceof Error ? e.message : String(e);
        if (text.includes('ARBOR_FENCED')) throw new FencedError('lease', text);
        if (text.includes('ARBOR_GENERATION')) throw new FencedError('generation', text);
        throw e;
      }
    },
    reset: async () => {
      await dropGeneration(client, prefix, generation);
    },
    dump: async () => {
      const keys = (await scanKeys(client, `${base}:*`)).filter(
        // Progress, control keys and fencing tokens are not content.
        (key) => !key.startsWith(`${base}:${controlTag(prefix)}:`) && !key.endsWith('}:fence'),
      );
      keys.sort(byLabel);
      const parts: string[] = [];
      for (const key of keys) {
        const type = await client.type(key);
        let value: unknown;
        if (type === 'string') value = await client.get(key);
        else if (type === 'hash') {
          const h = await client.hGetAll(key);
          value = Object.keys(h)
            .sort(byLabel)
            .map((f) => [f, h[f]]);
        } else if (type === 'zset') value = await client.zRangeWithScores(key, 0, -1);
        else if (type === 'list') value = await client.lRange(key, 0, -1);
        else value = type;
        parts.push(`${key.slice(base.length)}\n${JSON.stringify(value)}`);
      }
      return parts.join('\n\n');
    },
  };
};
