import { type Message } from '@arbor/domain';

/** Freezes a parsed JSON value all the way down (plain objects and arrays only). */
const deepFreeze = <T>(value: T): T => {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as object)) deepFreeze(v);
  }
  return value;
};

export interface MessageCache {
  get(tenantId: string, conversationId: string, messageId: string): Message | undefined;
  /** Parses `body`, freezes it, keeps it (evicting the least recently used), and returns it. */
  put(tenantId: string, conversationId: string, messageId: string, body: string): Message;
  readonly size: number;
}

/**
 * Parsed messages kept in memory, at most `capacity`, least recently used evicted first. A
 * committed message never changes (its row is written once, and a rebuild writes the same bytes
 * under the same id), so an entry never needs invalidating. Entries are deep-frozen because they
 * are shared by every reader: a caller that wants to change one must copy it.
 */
export const createMessageCache = (capacity: number): MessageCache => {
  const entries = new Map<string, Message>();
  const keyOf = (t: string, c: string, m: string) => `${t}\u0000${c}\u0000${m}`;
  return {
    get: (t, c, m) => {
      const key = keyOf(t, c, m);
      const hit = entries.get(key);
      if (hit !== undefined) {
        entries.delete(key);
        entries.set(key, hit);
      }
      return hit;
    },
    put: (t, c, m, body) => {
      const message = deepFreeze(JSON.parse(body) as Message);
      if (capacity <= 0) return message;
      const key = keyOf(t, c, m);
      entries.delete(key);
      entries.set(key, message);
      while (entries.size > capacity) entries.delete(entries.keys().next().value as string);
      return message;
    },
    get size() {
      return entries.size;
    },
  };
};
