/** A cache of the write-side state: validated against the log, dropped on any mismatch. */
import { type Role } from './messages';
import { type PMap, pmapEntries, pmapFrom } from './persistent-map';
import { type ConversationState, initialState, type MessageNode, type TurnRecord } from './state';

export const STATE_SNAPSHOT_VERSION = 2;

const isPMap = (v: unknown): v is PMap<unknown> =>
  typeof v === 'object' && v !== null && 'root' in v && 'size' in v;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const NONE: readonly string[] = Object.freeze([]);
const ROLE_CODES: Record<string, Role> = { s: 'system', u: 'user', a: 'assistant' };
const CODE_OF: Record<Role, string> = { system: 's', user: 'u', assistant: 'a' };
const isString = (v: unknown): v is string => typeof v === 'string';
const isIds = (v: unknown): v is string[] => Array.isArray(v) && v.every(isString);

type Ref = number | string | null;
const refOf = (id: string | null, index: ReadonlyMap<string, number>): Ref =>
  id === null ? null : (index.get(id) ?? id);
const idOf = (ref: unknown, ids: readonly string[]): string | null | undefined => {
  if (ref === null || typeof ref === 'string') return ref;
  return Number.isInteger(ref) && (ref as number) >= 0 && (ref as number) < ids.length
    ? ids[ref as number]
    : undefined;
};
const sameLength = (n: number, ...columns: unknown[]): boolean =>
  columns.every((c) => Array.isArray(c) && c.length === n);

const sparseOf = (lists: readonly (readonly string[])[]): [number, readonly string[]][] => {
  const out: [number, readonly string[]][] = [];
  lists.forEach((ids, i) => {
    if (ids.length > 0) out.push([i, ids]);
  });
  return out;
};
const fromSparse = (v: unknown, n: number): (readonly string[])[] | null => {
  if (!Array.isArray(v)) return null;
  const out = new Array<readonly string[]>(n).fill(NONE);
  let last = -1;
  for (const e of v) {
    if (!Array.isArray(e) || e.length !== 2) return null;
    const [i, ids] = e as unknown[];
    if (!Number.isInteger(i) || (i as number) <= last || (i as number) >= n) return null;
    if (!isIds(ids) || ids.length === 0) return null;
    out[i as number] = ids;
    last = i as number;
  }
  return out;
};

const encodeMessages = (m: PMap<MessageNode>, index: ReadonlyMap<string, number>) => {
  const entries = Array.from(pmapEntries(m));
  return {
    ids: entries.map(([id]) => id),
    parents: entries.map(([, n]) => refOf(n.parentId, index)),
    roles: entries.map(([, n]) => CODE_OF[n.role]).join(''),
    boundaries: entries.map(([, n]) => (n.boundary ? '1' : '0')).join(''),
    tokens: entries.map(([, n]) => n.tokens),
    toolUses: sparseOf(entries.map(([, n]) => n.toolUseIds)),
    toolResults: sparseOf(entries.map(([, n]) => n.toolResultIds)),
  };
};

const decodeMessages = (v: unknown): { map: PMap<MessageNode>; ids: string[] } | null => {
  if (!isObject(v) || !isIds(v.ids)) return null;
  const { ids, parents, roles, boundaries, tokens } = v;
  const n = ids.length;
  if (!sameLength(n, parents, tokens) || !isString(roles) || !isString(boundaries)) return null;
  if (roles.length !== n || boundaries.length !== n) return null;
  const uses = fromSparse(v.toolUses, n);
  const results = fromSparse(v.toolResults, n);
  if (uses === null || results === null) return null;
  const entries: [string, MessageNode][] = new Array<[string, MessageNode]>(n);
  for (let i = 0; i < n; i++) {
    const parentId = idOf((parents as unknown[])[i], ids);
    const role = ROLE_CODES[roles[i]];
    const b = boundaries[i];
    const t = (tokens as unknown[])[i];
    if (parentId === undefined || role === undefined || (b !== '0' && b !== '1')) return null;
    if (typeof t !== 'number') return null;
    entries[i] = [
      ids[i],
      {
        parentId,
        role,
        boundary: b === '1',
        tokens: t,
        toolUseIds: uses[i],
        toolResultIds: results[i],
      },
    ];
  }
  return { map: pmapFrom(entries), ids };
};

const encodeTurns = (m: PMap<TurnRecord>, index: ReadonlyMap<string, number>) => {
  const entries = Array.from(pmapEntries(m));
  return {
    ids: entries.map(([id]) => id),
    hashes: entries.map(([, t]) => t.contentHash),
    parents: entries.map(([, t]) => refOf(t.parentId, index)),
    messages: entries.map(([, t]) => t.messageIds.map((id) => refOf(id, index))),
    tips: entries.map(([, t]) => refOf(t.tip, index)),
    revisions: entries.map(([, t]) => t.revision),
  };
};

const decodeTurns = (v: unknown, messageIds: readonly string[]): PMap<TurnRecord> | null => {
  if (!isObject(v) || !isIds(v.ids) || !isIds(v.hashes)) return null;
  const { ids, hashes, parents, messages, tips, revisions } = v;
  const n = ids.length;
  if (!sameLength(n, hashes, parents, messages, tips, revisions)) return null;
  const entries: [string, TurnRecord][] = new Array<[string, TurnRecord]>(n);
  for (let i = 0; i < n; i++) {
    const parentId = idOf((parents as unknown[])[i], messageIds);
    const tip = idOf((tips as unknown[])[i], messageIds);
    const revision = (revisions as unknown[])[i];
    const refs = (messages as unknown[])[i];
    if (parentId === undefined || !isString(tip) || !Number.isSafeInteger(revision)) return null;
    if (!Array.isArray(refs)) return null;
    const turnMessages: string[] = new Array<string>(refs.length);
    for (let j = 0; j < refs.length; j++) {
      const id = idOf(refs[j], messageIds);
      if (!isString(id)) return null;
      turnMessages[j] = id;
    }
    entries[i] = [
      ids[i],
      {
        contentHash: hashes[i],
        parentId,
        messageIds: turnMessages,
        tip,
        revision: revision as number,
      },
    ];
  }
  return pmapFrom(entries);
};

export const encodeState = (state: ConversationState): string => {
  const index = new Map<string, number>();
  let i = 0;
  for (const [id] of pmapEntries(state.messages)) index.set(id, i++);
  const out: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(state)) {
    if (field === 'messages') out[field] = encodeMessages(value as PMap<MessageNode>, index);
    else if (field === 'turns') out[field] = encodeTurns(value as PMap<TurnRecord>, index);
    else out[field] = isPMap(value) ? { pmap: Array.from(pmapEntries(value)) } : value;
  }
  return JSON.stringify({ v: STATE_SNAPSHOT_VERSION, state: out });
};

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
  const messages = decodeMessages(stored.messages);
  if (messages === null) return null;
  const turns = decodeTurns(stored.turns, messages.ids);
  if (turns === null) return null;
  const out: Record<string, unknown> = {};
  for (const field of fields) {
    if (!(field in stored)) return null;
    const value = stored[field];
    if (field === 'messages') out[field] = messages.map;
    else if (field === 'turns') out[field] = turns;
    else if (isPMap(template[field])) {
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
