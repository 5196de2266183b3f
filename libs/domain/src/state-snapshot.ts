/**
 * The write-side state as JSON, so a cold open can start from a stored state at some revision
 * and fold only the events after it (a write-side snapshot). The log stays the truth: a snapshot
 * is a cache that a reader validates against the log and drops when anything disagrees.
 *
 * Format version 1: `{ v: 1, state }` where `state` has every field of ConversationState, each
 * persistent map written as `{ pmap: [[key, value], …] }` (trie order). Decoding checks the
 * version, that the fields are exactly those of the current state (a field added or removed since
 * the snapshot was written makes it unusable, so a state change needs no version bump to be safe)
 * and that each is a map where the state has a map; anything else gives null.
 */
import { type PMap, pmapEntries, pmapFrom } from './persistent-map';
import { type ConversationState, initialState } from './state';

export const STATE_SNAPSHOT_VERSION = 1;

const isPMap = (v: unknown): v is PMap<unknown> =>
  typeof v === 'object' && v !== null && 'root' in v && 'size' in v;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The state as snapshot text (deterministic for a given state). */
export const encodeState = (state: ConversationState): string => {
  const out: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(state)) {
    out[field] = isPMap(value) ? { pmap: Array.from(pmapEntries(value)) } : value;
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
    if (isPMap(template[field])) {
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
