/**
 * The write-side state as JSON, so a cold open can start from a stored state at some revision
 * and fold only the events after it (a write-side snapshot). The log stays the truth: a snapshot
 * is a cache that a reader validates against the log and drops when anything disagrees.
 *
 * Format version 1: `{ v: 1, state }` where `state` has every field of ConversationState, each
 * persistent map written as `{ pmap: [[key, value], …] }` (trie order), except the two large
 * ones, written as rows without field names: `messages` as `{ nodes: [[id, parentId, role,
 * boundary (0/1), tokens, toolUseIds, toolResultIds], …] }` and `turns` as `{ turns: [[turnId,
 * contentHash, parentId, messageIds, tip, revision], …] }` (a 20,000-message state is ~35%
 * smaller, and parsing it as much cheaper). Decoding checks the
 * version, that the fields are exactly those of the current state (a field added or removed since
 * the snapshot was written makes it unusable, so a state change needs no version bump to be safe)
 * and that each is a map where the state has a map; anything else gives null.
 */
import { type Role } from './messages';
import { type PMap, pmapEntries, pmapFrom } from './persistent-map';
import { type ConversationState, initialState, type MessageNode, type TurnRecord } from './state';

export const STATE_SNAPSHOT_VERSION = 1;

const isPMap = (v: unknown): v is PMap<unknown> =>
  typeof v === 'object' && v !== null && 'root' in v && 'size' in v;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const NONE: readonly string[] = Object.freeze([]);
const ROLES: readonly string[] = ['system', 'user', 'assistant'];
const isString = (v: unknown): v is string => typeof v === 'string';
const isIds = (v: unknown): v is string[] => Array.isArray(v) && v.every(isString);
const idsOrNone = (ids: string[]): readonly string[] => (ids.length === 0 ? NONE : ids);

/** Row codecs for the large maps; other maps are `[key, value]` entries. */
const CODECS: Record<
  string,
  { tag: string; encode(m: PMap<never>): unknown[]; decode(rows: unknown[]): PMap<unknown> | null }
> = {
  messages: {
    tag: 'nodes',
    encode: (m: PMap<MessageNode>) =>
      Array.from(pmapEntries(m), ([id, n]) => [
        id,
        n.parentId,
        n.role,
        n.boundary ? 1 : 0,
        n.tokens,
        n.toolUseIds,
        n.toolResultIds,
      ]),
    decode: (rows) => {
      const entries: [string, MessageNode][] = [];
      for (const r of rows) {
        if (!Array.isArray(r) || r.length !== 7) return null;
        const [id, parentId, role, boundary, tokens, uses, results] = r as unknown[];
        if (!isString(id) || !(parentId === null || isString(parentId))) return null;
        if (!isString(role) || !ROLES.includes(role) || (boundary !== 0 && boundary !== 1))
          return null;
        if (typeof tokens !== 'number' || !isIds(uses) || !isIds(results)) return null;
        entries.push([
          id,
          {
            parentId,
            role: role as Role,
            boundary: boundary === 1,
            tokens,
            toolUseIds: idsOrNone(uses),
            toolResultIds: idsOrNone(results),
          },
        ]);
      }
      return pmapFrom(entries);
    },
  },
  turns: {
    tag: 'turns',
    encode: (m: PMap<TurnRecord>) =>
      Array.from(pmapEntries(m), ([id, t]) => [
        id,
        t.contentHash,
        t.parentId,
        t.messageIds,
        t.tip,
        t.revision,
      ]),
    decode: (rows) => {
      const entries: [string, TurnRecord][] = [];
      for (const r of rows) {
        if (!Array.isArray(r) || r.length !== 6) return null;
        const [id, contentHash, parentId, messageIds, tip, revision] = r as unknown[];
        if (!isString(id) || !isString(contentHash) || !(parentId === null || isString(parentId))) {
          return null;
        }
        if (!isIds(messageIds) || !isString(tip) || !Number.isSafeInteger(revision)) return null;
        entries.push([
          id,
          { contentHash, parentId, messageIds, tip, revision: revision as number },
        ]);
      }
      return pmapFrom(entries);
    },
  },
};

/** The state as snapshot text (deterministic for a given state). */
export const encodeState = (state: ConversationState): string => {
  const out: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(state)) {
    const codec = CODECS[field];
    if (codec !== undefined && isPMap(value))
      out[field] = { [codec.tag]: codec.encode(value as PMap<never>) };
    else out[field] = isPMap(value) ? { pmap: Array.from(pmapEntries(value)) } : value;
  }
  return JSON.stringify({ v: STATE_SNAPSHOT_VERSION, state: out });
};

/** The state a snapshot text holds, or null when it is not a usable version-1 snapshot. */
export const decodeState = (text: string): ConversationState | null => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isObject(parsed) || parsed.v !== STATE_SNAPSHOT_VERSION || !isObject(parsed.state)) {
    return null;
  }
  const stored = parsed.state;
  const template = initialState() as unknown as Record<string, unknown>;
  const fields = Object.keys(template);
  if (Object.keys(stored).length !== fields.length) return null;
  const out: Record<string, unknown> = {};
  for (const field of fields) {
    if (!(field in stored)) return null;
    const value = stored[field];
    const codec = CODECS[field];
    if (codec !== undefined) {
      const rows = isObject(value) ? value[codec.tag] : undefined;
      if (!Array.isArray(rows)) return null;
      const map = codec.decode(rows);
      if (map === null) return null;
      out[field] = map;
    } else if (isPMap(template[field])) {
      if (!isObject(value) || !Array.isArray(value.pmap)) return null;
      const entries = value.pmap as unknown[];
      if (!entries.every((e) => Array.isArray(e) && e.length === 2 && typeof e[0] === 'string')) {
        return null;
      }
      out[field] = pmapFrom(entries as [string, unknown][]);
    } else {
      if (value === undefined) return null;
      out[field] = value;
    }
  }
  const state = out as unknown as ConversationState;
  if (state.status !== 'active' || !Number.isSafeInteger(state.revision) || state.revision < 0) {
    return null;
  }
  return state;
};
