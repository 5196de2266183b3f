import { createHash } from 'node:crypto';
import keySlot from 'cluster-key-slot';
import { type ConversationEvent, type Message } from '@arbor/domain';
import { parseStreamName, type RecordedEvent } from '@arbor/event-store';
import {
  type CheckpointRow,
  type ConversationListKey,
  type ConversationRow,
  type ConversationSort,
  listKeyOf,
  prefixEnd,
  type ForkRow,
  type TreeNode,
} from '../conversations/queries';
import { CONVERSATION_ERASED } from '../conversations/apply';
import { type ReadModelQueries, type ReadModelSink } from '../read-model-port';
import { type RedisClient } from './connection';

/**
 * The conversation read models in Redis. Layout, under a generation `g` (the live one is named
 * by `<prefix>:gen`), every key of one conversation hash-tagged by `{<tenant>:<conv>}` so it sits
 * in one Redis Cluster slot:
 *
 * - `<prefix>:<g>:{t:c}:conv` — the conversation row (JSON), incl. `revision`, the last stream
 *   revision applied: an event at or below it is a redelivery and changes nothing;
 * - `…:msgs` (hash id → parent, role, depth, seq, turn), `…:bodies` (hash id → message JSON),
 *   `…:order` (zset id by seq), `…:branch` (list: the active branch, index = depth),
 *   `…:forks`, `…:cps`, `…:failures`, `…:digests` (hashes);
 * - `<prefix>:<g>:{t}:list` — the tenant's conversations by creation order (zset), and
 *   `…:{t}:gone` — the conversations erased from it (a late write never lists one again);
 * - `…:list:activity`, `…:list:title` — the same in the list's other orders: lexicographic
 *   sorted sets (score 0) of `<key>\0<seq, 16 digits>\0<id>`, `key` the last activity or the
 *   title, so `ZRANGE … BYLEX` walks them in the order of SQLite's `(key, seq)` indexes;
 * - control keys, all tagged `{<prefix>:ctl}` (one slot): the live generation marker
 *   `<prefix>:{<prefix>:ctl}:gen`, per generation `<prefix>:<g>:{<prefix>:ctl}:meta` and the
 *   projectors' checkpoints `…:checkpoint:<name>`, the pool's leases and fencing counters.
 *
 * Every script touches the keys of ONE hash slot (Redis Cluster refuses anything
 * else; `runScript` checks it before sending). A batch is therefore several atomic writes:
 * 1. per conversation, one script in its slot: refused unless the conversation's stored
 *    revision is still the one the batch was computed from and the writer's fencing token is at
 *    least the highest one that conversation has seen (`…:fence`, raised by every fenced write),
 *    so a worker whose lease was taken over cannot write a conversation its successor wrote;
 * 2. the tenant list (ZADD unless in `…:gone`) and a fork's entry on its source (HSET unless the
 *    source is erased or the fork is in the source's `…:forksgone`): idempotent and monotonic;
 * 3. the checkpoint, in the control slot, in one script that checks the live generation and the
 *    lease value: a worker whose lease expired never moves the partition's checkpoint.
 * A crash between them only replays events that the revision check turns into no-ops.
 */
interface StoredConversation {
  id: string;
  seq: number;
  title: string | null;
  metadata: string | null;
  tip: string | null;
  revision: number;
  position: number;
  createdAt: string;
  updatedAt: string;
  ffc: string | null;
  ffm: string | null;
  messageCount: number;
  turnCount: number;
  cutAt: string | null;
  /** Failure ids still pending (resolved by the next committed turn). */
  pending: string[];
}

interface MessageMeta {
  parentId: string | null;
  role: string;
  depth: number;
  seq: number;
  turnId: string;
}

interface StoredCheckpoint {
  messageId: string;
  status: CheckpointRow['status'];
  reason: string | null;
  digest: string | null;
  revision: number;
}

interface StoredFailure {
  input: string;
  error: string;
  revision: number;
  pending: boolean;
}

export interface RedisReadModelOptions {
  client: RedisClient;
  /** Every key starts with it (tests use a random one per file). */
  prefix: string;
  /** The generation written and read. */
  generation: string;
  /** The projector's name (its checkpoint key; a partition worker's is `p<i>`). */
  name?: string;
  /**
   * Checked inside the one atomic write of every batch (a Lua script): the live generation must
   * still be this one (`<prefix>:gen`; a missing marker — Redis emptied — refuses too)…
   */
  guardGeneration?: string;
  /** …and the partition's lease must still hold exactly this value (`<workerId>:<token>`). */
  fence?: () => { leaseKey: string; leaseValue: string; token: number } | null;
}

/** A batch refused because its writer's lease (fencing token) or generation is no longer live. */
export class FencedError extends Error {
  constructor(
    readonly reason: 'lease' | 'generation',
    message: string,
  ) {
    super(message);
    this.name = 'FencedError';
  }
}

/**
 * One conversation's part of a batch, in its slot. KEYS[1] its row (`…:conv`), KEYS[2] its
 * highest fencing token seen (`…:fence`), KEYS[3] its erasure marker, KEYS[4..] every other key
 * the commands touch (declared, all in the same slot). ARGV[1] the stored revision the batch was
 * computed from (`-1`: no row yet), ARGV[2] the writer's token (`''`: an unfenced rebuild), then
 * the commands as `<n> <cmd…>`. Returns 1, or an ARBOR_FENCED error and writes nothing.
 */
export const APPLY_CONVERSATION_SCRIPT = `
if redis.call('EXISTS', KEYS[3]) == 1 then return 0 end
local row = redis.call('GET', KEYS[1])
local stored = -1
if row then stored = cjson.decode(row).revision end
if stored ~= tonumber(ARGV[1]) then
  return redis.error_reply('ARBOR_FENCED ' .. KEYS[1] .. ' is at revision ' .. stored .. ', not ' .. ARGV[1])
end
if ARGV[2] ~= '' then
  local seen = tonumber(redis.call('GET', KEYS[2]) or '0')
  if seen > tonumber(ARGV[2]) then
    return redis.error_reply('ARBOR_FENCED token ' .. ARGV[2] .. ' is older than ' .. seen)
  end
  redis.call('SET', KEYS[2], ARGV[2])
end
local i = 3
while i <= #ARGV do
  local n = tonumber(ARGV[i])
  redis.call(unpack(ARGV, i + 1, i + n))
  i = i + n + 1
end
return 1
`;

/**
 * A conversation's tenant-list entries, in the tenant's slot: KEYS the creation-order list, its
 * erased set, the activity and title orders; ARGV[1] the creation score (`''`: listed already),
 * ARGV[2] the id, ARGV[3..4] its activity/title members before (`''`: none), ARGV[5..6] now.
 * Never lists an erased one again; idempotent (a redelivered batch writes the same members).
 */
export const LIST_UPDATE_SCRIPT = `
if redis.call('SISMEMBER', KEYS[2], ARGV[2]) == 1 then return 0 end
if ARGV[1] ~= '' then redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2]) end
if ARGV[3] ~= '' and ARGV[3] ~= ARGV[5] then redis.call('ZREM', KEYS[3], ARGV[3]) end
if ARGV[4] ~= '' and ARGV[4] ~= ARGV[6] then redis.call('ZREM', KEYS[4], ARGV[4]) end
redis.call('ZADD', KEYS[3], 0, ARGV[5])
redis.call('ZADD', KEYS[4], 0, ARGV[6])
return 1
`;
/** Erased from the tenant list (KEYS as above; ARGV the id, its two members or ''): gone. */
export const LIST_REMOVE_SCRIPT = `
redis.call('SADD', KEYS[2], ARGV[1])
if ARGV[2] ~= '' then redis.call('ZREM', KEYS[3], ARGV[2]) end
if ARGV[3] ~= '' then redis.call('ZREM', KEYS[4], ARGV[3]) end
return redis.call('ZREM', KEYS[1], ARGV[1])
`;
/**
 * A conversation erased, in its slot: KEYS[1] its `:erased` marker (set to ARGV[1]), KEYS[2..]
 * every other key it has (unlinked). Atomic: no reader sees half of it.
 */
export const ERASE_CONVERSATION_SCRIPT = `
for i = 2, #KEYS do redis.call('UNLINK', KEYS[i]) end
redis.call('SET', KEYS[1], ARGV[1])
return 1
`;
/** A fork's entry on its source (KEYS: forks, forksgone, the source's erasure marker). */
export const FORK_ADD_SCRIPT = `
if redis.call('EXISTS', KEYS[3]) == 1 then return 0 end
if redis.call('SISMEMBER', KEYS[2], ARGV[1]) == 1 then return 0 end
return redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
`;
export const FORK_REMOVE_SCRIPT = `
if redis.call('EXISTS', KEYS[3]) == 1 then return 0 end
redis.call('SADD', KEYS[2], ARGV[1])
return redis.call('HDEL', KEYS[1], ARGV[1])
`;
/**
 * The checkpoint, in the control slot (KEYS[1] the checkpoint, KEYS[2] the generation marker,
 * KEYS[3] the lease or ''): refused unless the live generation is ARGV[1] (a missing marker —
 * Redis emptied — refuses too; ARGV[1] '' skips the check) and the lease holds ARGV[2].
 */
export const CHECKPOINT_SCRIPT = `
if ARGV[1] ~= '' and redis.call('GET', KEYS[2]) ~= ARGV[1] then
  return redis.error_reply('ARBOR_GENERATION the live generation is not ' .. ARGV[1])
end
if ARGV[2] ~= '' and redis.call('GET', KEYS[3]) ~= ARGV[2] then
  return redis.error_reply('ARBOR_FENCED the lease ' .. KEYS[3] .. ' is not held by ' .. ARGV[2])
end
return redis.call('SET', KEYS[1], ARGV[3])
`;

const sha1 = (text: string): string => createHash('sha1').update(text).digest('hex');

/** The Redis Cluster slot of a key (CRC16 of its hash tag, as `CLUSTER KEYSLOT` computes). */
export const slotOf = (key: string): number => keySlot(key);

/**
 * Runs a script by its SHA, loading it once when the server does not know it (NOSCRIPT). Every
 * key it touches is in `keys` (KEYS), and they must share one hash slot — checked here, so a
 * layout that would fail on Redis Cluster fails on a single node too.
 */
export const runScript = async (
  client: RedisClient,
  script: string,
  keys: readonly string[],
  args: readonly string[],
  sha = sha1(script),
): Promise<unknown> => {
  const slots = new Set(keys.map(slotOf));
  if (slots.size > 1) {
    throw new Error(`a script would touch ${slots.size} hash slots: ${keys.join(', ')}`);
  }
  const tail = [String(keys.length), ...keys, ...args];
  try {
    // On a cluster: sent to the master of the (one) slot; a node that does not know the script
    // yet answers NOSCRIPT and gets it once.
    return await client.sendCommand(['EVALSHA', sha, ...tail], keys[0]);
  } catch (e) {
    if (e instanceof Error && e.message.startsWith('NOSCRIPT')) {
      return client.sendCommand(['EVAL', script, ...tail], keys[0]);
    }
    throw e;
  }
};

/** Commands gathered for one atomic write (every key of one slot). */
type Command = string[];

/** One conversation's part of a batch. */
interface ConversationWrite {
  /** Every key the conversation's script touches (its slot only). */
  keys: string[];
  storedRevision: number;
  commands: Command[];
  /** The tenant-list entries (creation score `''` when listed already), sorted members. */
  list: {
    t: string;
    c: string;
    score: string;
    before: { activity: string; title: string } | null;
    now: { activity: string; title: string };
  };
  forks: { keys: string[]; fork: string; value: string }[];
}

const APPLY_SHA = sha1(APPLY_CONVERSATION_SCRIPT);
const LIST_UPDATE_SHA = sha1(LIST_UPDATE_SCRIPT);
const LIST_REMOVE_SHA = sha1(LIST_REMOVE_SCRIPT);
const FORK_ADD_SHA = sha1(FORK_ADD_SCRIPT);
const FORK_REMOVE_SHA = sha1(FORK_REMOVE_SCRIPT);
const CHECKPOINT_SHA = sha1(CHECKPOINT_SCRIPT);
const ERASE_SHA = sha1(ERASE_CONVERSATION_SCRIPT);

/** The control keys' hash tag: one slot for the marker, metas, checkpoints, leases, fences. */
export const controlTag = (prefix: string): string => `{${prefix}:ctl}`;
export const generationKey = (prefix: string): string => `${prefix}:${controlTag(prefix)}:gen`;
/** A projector's checkpoint in a generation (`name`: `p<i>` for a partition worker). */
export const projectorCheckpointKey = (prefix: string, generation: string, name: string): string =>
  `${prefix}:${generation}:${controlTag(prefix)}:checkpoint:${name}`;

/** The live generation, creating `initial` as the live one when none is set yet. */
export const ensureGeneration = async (
  client: RedisClient,
  prefix: string,
  initial: string,
): Promise<string> => {
  await client.set(generationKey(prefix), initial, { condition: 'NX' });
  const live = await client.get(generationKey(prefix));
  return live ?? initial;
};

/** Names `generation` the live one (one SET: readers switch atomically). */
export const switchGeneration = (
  client: RedisClient,
  prefix: string,
  generation: string,
): Promise<unknown> => client.set(generationKey(prefix), generation);

/** Every key matching `pattern`, by SCAN (never KEYS), on every master of a cluster. */
export const scanKeys = (client: RedisClient, pattern: string): Promise<string[]> =>
  client.scanKeys(pattern);

/** Deletes the keys matching `pattern` (SCAN + UNLINK), one key per call (Cluster-safe). */
export const unlinkMatching = async (client: RedisClient, pattern: string): Promise<number> => {
  const keys = await scanKeys(client, pattern);
  await Promise.all(keys.map((k) => client.unlink(k)));
  return keys.length;
};

/** Deletes one generation's keys. */
export const dropGeneration = (
  client: RedisClient,
  prefix: string,
  generation: string,
): Promise<number> => unlinkMatching(client, `${prefix}:${generation}:*`);

const toRow = (c: StoredConversation): ConversationRow => ({
  id: c.id,
  title: c.title,
  metadata: c.metadata === null ? null : (JSON.parse(c.metadata) as Record<string, unknown>),
  tip: c.tip,
  revision: c.revision,
  position: c.position,
  createdAt: c.createdAt,
  updatedAt: c.updatedAt,
  forkedFrom: c.ffc !== null && c.ffm !== null ? { conversationId: c.ffc, messageId: c.ffm } : null,
  messageCount: c.messageCount,
  turnCount: c.turnCount,
  cutAt: c.cutAt,
});

/** Every key a conversation has (`<prefix>:<gen>:{t:c}:<part>`). */
const ERASED_PARTS = [
  'conv',
  'msgs',
  'bodies',
  'order',
  'branch',
  'cps',
  'failures',
  'digests',
  'forks',
  'forksgone',
  'fence',
];

const byLabel = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export const createRedisReadModel = (
  options: RedisReadModelOptions,
): { queries: ReadModelQueries; sink: ReadModelSink } => {
  const { client, prefix, generation } = options;
  const name = options.name ?? 'readmodels';
  const base = `${prefix}:${generation}`;
  const conv = (t: string, c: string) => `${base}:{${t}:${c}}`;
  const listKey = (t: string) => `${base}:{${t}}:list`;
  const checkpointKey = projectorCheckpointKey(prefix, generation, name);
  const goneKey = (t: string) => `${base}:{${t}}:gone`;
  const forkKeys = (t: string, source: string) => [
    `${conv(t, source)}:forks`,
    `${conv(t, source)}:forksgone`,
    `${conv(t, source)}:erased`,
  ];
  const sortedKey = (t: string, sort: Exclude<ConversationSort, 'created'>) =>
    `${listKey(t)}:${sort === 'lastActivity' ? 'activity' : 'title'}`;
  const member = (key: string, seq: number, id: string) =>
    `${key}\u0000${String(seq).padStart(16, '0')}\u0000${id}`;
  const sortedMembers = (row: StoredConversation) => ({
    activity: member(listKeyOf('lastActivity', row), row.seq, row.id),
    title: member(listKeyOf('title', row), row.seq, row.id),
  });

  const getConv = async (t: string, c: string): Promise<StoredConversation | null> => {
    const raw = await client.get(`${conv(t, c)}:conv`);
    return raw === null ? null : (JSON.parse(raw) as StoredConversation);
  };

  /**
   * ConversationErased: every key of the conversation goes (rows, bodies, branch, checkpoints,
   * failures, digests, its forks list) in one script (its slot) with the content-free `:erased`
   * marker;
   * then, in other slots, its entry in the tenant's list and on its source's forks list.
   */
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

  /**
   * One conversation's events of a batch (in revision order) as the writes of its slot (one
   * script, `APPLY_CONVERSATION_SCRIPT`) and of other slots (the tenant list, a fork's entry on
   * its source), or null when nothing is new.
   */
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
      // Redelivered: its rows are written, but a crash may have come between them and the
      // other slots' writes (the tenant list, a fork's entry), which the checkpoint did not
      // pass yet. Those are idempotent: write them again from the stored row.
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

    // The active branch: the stored list cut to `keep` entries, then `appended`.
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
      // keep depths <= depth
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
            const f = failures.get(id) ?? (await loadFailure(k, id));
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

    // Other slots: idempotent writes (same member, same score / same field, same value).
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

  const loadFailure = async (k: string, id: string): Promise<StoredFailure | null> => {
    const raw = await client.hGet(`${k}:failures`, id);
    return raw === null ? null : (JSON.parse(raw) as StoredFailure);
  };

  const sink: ReadModelSink = {
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
      // Progress (checkpoints, the readiness mark) is not part of the read models' content…
      const keys = (await scanKeys(client, `${base}:*`)).filter(
        // …nor the control keys, nor who wrote a conversation last (its highest fencing token).
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

  const digestsOf = async (k: string) => {
    const all = await client.hGetAll(`${k}:digests`);
    const byMessage = new Map<string, { label: string; digest: string; revision: number }[]>();
    for (const rev of Object.keys(all).sort((a, b) => Number(a) - Number(b))) {
      const d = JSON.parse(all[rev]) as { messageId: string; label: string; digest: string };
      const list = byMessage.get(d.messageId) ?? [];
      list.push({ label: d.label, digest: d.digest, revision: Number(rev) });
      byMessage.set(d.messageId, list);
    }
    return byMessage;
  };

  const bodiesOf = async (k: string, ids: string[]): Promise<Message[]> => {
    if (ids.length === 0) return [];
    const raws = await client.hmGet(`${k}:bodies`, ids);
    return raws.map((r, i) => {
      if (r === null) throw new Error(`read model: body of ${ids[i]} is missing`);
      return JSON.parse(r) as Message;
    });
  };

  /** Messages by id, with the digests kept at each rewind to them (as the SQLite queries). */
  const branchItems = async (k: string, ids: string[]): Promise<Message[]> => {
    const messages = await bodiesOf(k, ids);
    const digests = (await client.hLen(`${k}:digests`)) > 0 ? await digestsOf(k) : null;
    return messages.map((m) => {
      const d = digests?.get(m.id);
      return d === undefined ? m : { ...m, digests: d };
    });
  };

  const queries: ReadModelQueries = {
    getConversation: async (t, c) => {
      const row = await getConv(t, c);
      if (!row) return null;
      const raw = await client.hGetAll(`${conv(t, c)}:forks`);
      const forks: (ForkRow & { position: number })[] = Object.entries(raw).map(([fork, v]) => {
        const f = JSON.parse(v) as { from: string; position: number };
        return { conversationId: fork, messageId: f.from, position: f.position };
      });
      forks.sort((a, b) => a.position - b.position);
      return {
        ...toRow(row),
        forks: forks.map((f) => ({ conversationId: f.conversationId, messageId: f.messageId })),
      };
    },
    listConversations: async (t, afterSeq, limit) => {
      const ids = await client.zRange(listKey(t), `(${afterSeq}`, '+inf', {
        BY: 'SCORE',
        LIMIT: { offset: 0, count: limit + 1 },
      });
      const rows = await Promise.all(ids.map((c) => getConv(t, c)));
      const present = rows.filter((r): r is StoredConversation => r !== null);
      const page = present.slice(0, limit);
      return {
        items: page.map(toRow),
        nextSeq: present.length > limit ? page[page.length - 1].seq : null,
        seqs: page.map((r) => r.seq),
      };
    },
    listConversationsBy: async (t, o) => {
      if (o.titlePrefix !== null && o.sort !== 'title')
        throw new Error('a title prefix needs sort: title');
      const count = o.limit + 1;
      const rev = o.order === 'desc';
      let ids: string[];
      if (o.sort === 'created') {
        const after = o.after === null ? null : `(${o.after.seq}`;
        ids = rev
          ? await client.zRange(listKey(t), after ?? '+inf', '-inf', {
              BY: 'SCORE',
              REV: true,
              LIMIT: { offset: 0, count },
            })
          : await client.zRange(listKey(t), after ?? '-inf', '+inf', {
              BY: 'SCORE',
              LIMIT: { offset: 0, count },
            });
      } else {
        // Lexicographic bounds: `[p` .. `(p U+10FFFF` for a prefix; after an item, just above
        // (`\u0001` sorts above the `\u0000` before every id) or just below its key and seq.
        const at = (k: ConversationListKey, tail: string) =>
          `(${k.key}\u0000${String(k.seq).padStart(16, '0')}${tail}`;
        const p = o.titlePrefix;
        const low = p === null ? '-' : `[${p}`;
        const high = p === null ? '+' : `(${prefixEnd(p)}`;
        const key = sortedKey(t, o.sort);
        const members = rev
          ? await client.zRange(key, o.after === null ? high : at(o.after, '\u0000'), low, {
              BY: 'LEX',
              REV: true,
              LIMIT: { offset: 0, count },
            })
          : await client.zRange(key, o.after === null ? low : at(o.after, '\u0001'), high, {
              BY: 'LEX',
              LIMIT: { offset: 0, count },
            });
        ids = members.map((m) => m.slice(m.lastIndexOf('\u0000') + 1));
      }
      const rows = await Promise.all(ids.slice(0, o.limit).map((c) => getConv(t, c)));
      const page = rows.filter((r): r is StoredConversation => r !== null);
      return {
        items: page.map(toRow),
        keys: page.map((r) => ({ key: listKeyOf(o.sort, r), seq: r.seq })),
        more: ids.length > o.limit,
      };
    },
    activeBranchPage: async (t, c, fromDepth, limit) => {
      const k = conv(t, c);
      const ids = await client.lRange(`${k}:branch`, fromDepth, fromDepth + limit);
      return {
        items: await branchItems(k, ids.slice(0, limit)),
        nextDepth: ids.length > limit ? fromDepth + limit : null,
      };
    },
    activeBranchTail: async (t, c, last) => {
      const k = conv(t, c);
      const ids = last <= 0 ? [] : await client.lRange(`${k}:branch`, -last, -1);
      return { items: await branchItems(k, ids), nextDepth: null };
    },
    depthOf: async (t, c, id) => {
      const raw = await client.hGet(`${conv(t, c)}:msgs`, id);
      return raw === null ? null : (JSON.parse(raw) as MessageMeta).depth;
    },
    getMessage: async (t, c, id) => {
      const raw = await client.hGet(`${conv(t, c)}:bodies`, id);
      return raw === null ? null : (JSON.parse(raw) as Message);
    },
    tree: async (t, c) => {
      const k = conv(t, c);
      const ids = await client.zRange(`${k}:order`, 0, -1);
      if (ids.length === 0) return [];
      const raws = await client.hmGet(`${k}:msgs`, ids);
      const nodes = new Map<string, TreeNode>();
      ids.forEach((id, i) => {
        const m = JSON.parse(raws[i] as string) as MessageMeta;
        nodes.set(id, { id, parentId: m.parentId, role: m.role, children: [] });
      });
      for (const n of nodes.values())
        if (n.parentId !== null) nodes.get(n.parentId)?.children.push(n.id);
      return [...nodes.values()];
    },
    allMessages: async (t, c) => {
      const k = conv(t, c);
      return bodiesOf(k, await client.zRange(`${k}:order`, 0, -1));
    },
    checkpoints: async (t, c) => {
      const all = await client.hGetAll(`${conv(t, c)}:cps`);
      return Object.keys(all)
        .sort(byLabel)
        .map((label) => {
          const cp = JSON.parse(all[label]) as StoredCheckpoint;
          return {
            label,
            messageId: cp.messageId,
            status: cp.status,
            ...(cp.reason !== null ? { reason: cp.reason } : {}),
            ...(cp.digest !== null ? { digest: cp.digest } : {}),
          };
        });
    },
    pendingFailure: async (t, c) => {
      const k = conv(t, c);
      const row = await getConv(t, c);
      if (!row || row.pending.length === 0) return null;
      let best: { id: string; f: StoredFailure } | null = null;
      for (const id of row.pending) {
        const f = await loadFailure(k, id);
        if (f && f.pending && (best === null || f.revision > best.f.revision)) best = { id, f };
      }
      return best
        ? { failureId: best.id, input: JSON.parse(best.f.input), error: JSON.parse(best.f.error) }
        : null;
    },
  };

  return { queries, sink };
};
