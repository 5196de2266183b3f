/**
 * Bounded caches of per-message measurements. A message is immutable, so its estimate for one
 * (provider, model) and one way of rendering it (which results elided, which images stripped)
 * never changes: the key says all of that, and an entry never goes stale, only old.
 */

/** A Map that forgets its least recently used entries beyond `maxEntries`. */
export interface Lru<V> {
  get(key: string): V | undefined;
  set(key: string, value: V): void;
  readonly size: number;
}

export function createLru<V>(maxEntries: number): Lru<V> {
  if (!Number.isInteger(maxEntries) || maxEntries < 1) {
    throw new RangeError('maxEntries must be a positive integer');
  }
  const map = new Map<string, V>();
  return {
    get(key) {
      const value = map.get(key);
      if (value === undefined) return undefined;
      // Re-insert: Map iteration order is insertion order, so the oldest key comes first.
      map.delete(key);
      map.set(key, value);
      return value;
    },
    set(key, value) {
      map.delete(key);
      map.set(key, value);
      if (map.size > maxEntries) map.delete(map.keys().next().value as string);
    },
    get size() {
      return map.size;
    },
  };
}

/** What the ladder measures once per rendered message. */
export interface ItemStats {
  /** Estimated input tokens, uncalibrated. */
  tokens: number;
  /** Of which: tool-result text, and images (tool-result images count as images). */
  toolResultTokens: number;
  imageTokens: number;
  images: number;
  /** Decoded bytes of all images, and the largest single image (decoded and base64). */
  imageBytes: number;
  maxImageBytes: number;
  maxImageBase64: number;
  /** Longest side of the largest image, px (0 when none or unreadable). */
  maxImageSide: number;
  /** Length of the message's JSON: a stand-in for its share of the request bytes. */
  jsonBytes: number;
  /** sha256 of the rendered message's JSON (role and content). */
  hash: string;
}

export interface TokenCache {
  items: Lru<ItemStats>;
  /** Single numbers: tokens of one tool result, characters of a serialized message, … */
  numbers: Lru<number>;
}

export const DEFAULT_TOKEN_CACHE_ENTRIES = 100_000;

export function createTokenCache(maxEntries = DEFAULT_TOKEN_CACHE_ENTRIES): TokenCache {
  return { items: createLru(maxEntries), numbers: createLru(maxEntries) };
}
