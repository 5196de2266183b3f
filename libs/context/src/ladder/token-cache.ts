/**
 * Bounded caches of per-message measurements. A message is immutable, so its estimate for one
 * (provider, model) and one way of rendering it (which results elided, which images stripped)
 * never changes: the key says all of that, and an entry never goes stale, only old.
 */
import { LRUCache } from 'lru-cache';
import type { RenderedEntry, RenderMemo } from './view';

export interface Lru<V> {
  get(key: string): V | undefined;
  set(key: string, value: V): void;
  readonly size: number;
}

/**
 * A bounded map that forgets the least recently used entries (lru-cache). It replaced a
 * hand-written two-generation map: on 1M lookups over 100k entries lru-cache was faster and kept
 * more hits (exact LRU).
 */
export function createLru<V extends NonNullable<unknown>>(maxEntries: number): Lru<V> {
  if (!Number.isInteger(maxEntries) || maxEntries < 1) {
    throw new RangeError('maxEntries must be an integer of at least 1');
  }
  return new LRUCache<string, V>({ max: maxEntries });
}

/** What the ladder measures once per rendered message. */
export interface ItemStats {
  /** Estimated input tokens, uncalibrated. */
  tokens: number;
  /** Of which: tool-result text, and images (tool-result images count as images). */
  toolResultTokens: number;
  imageTokens: number;
  images: number;
  /** Decoded bytes of all images, their base64 characters, and the largest single image. */
  imageBytes: number;
  imageChars: number;
  maxImageBytes: number;
  maxImageBase64: number;
  /** Longest side of the largest image, px (0 when none or unreadable). */
  maxImageSide: number;
  /**
   * Of `tokens`: thinking blocks and reasoning items, which the provider strips when the message
   * is from an earlier turn (see tokens/thinking-rules.ts).
   */
  reasoningTokens: number;
  /** Length of the message's JSON: a stand-in for its share of the request bytes. */
  jsonBytes: number;
  /** sha256 digest of the rendered message's JSON (role and content). */
  digest: Buffer;
}

/**
 * Item stats live in one map per scope (conversation, provider, model), keyed by the rendered
 * identity — for an untouched message its id, a string the caller already holds, so a lookup
 * builds no key. Scopes are kept in an LRU; a scope that outgrows `maxEntries` starts over.
 */
export interface TokenCache {
  scope(name: string): Map<string, ItemStats>;
  /** Single numbers: tokens of one tool result, characters of a serialized message, … */
  numbers: Lru<number>;
  readonly maxEntries: number;
  /** Renderings of elided / stripped messages of one conversation (see `RenderMemo`). */
  renderMemo?(conversation: string): RenderMemo;
}

export const DEFAULT_TOKEN_CACHE_ENTRIES = 100_000;
const SCOPES = 256;

/**
 * Render memos for every conversation, `maxEntries` renderings in all: when one more would go
 * over, all are forgotten at once (the next calls render again, as without a memo). A rendering
 * holds its placeholder text and the message's other blocks, so the bound is on the total.
 */
export function createRenderMemos(maxEntries: number): (conversation: string) => RenderMemo {
  let memos = new Map<string, Map<string, RenderedEntry>>();
  let total = 0;
  return (conversation) => ({
    get: (messageId) => memos.get(conversation)?.get(messageId),
    set(messageId, entry) {
      let memo = memos.get(conversation);
      if (memo?.has(messageId) !== true && total >= maxEntries) {
        memos = new Map();
        memo = undefined;
        total = 0;
      }
      if (memo === undefined) {
        memo = new Map();
        memos.set(conversation, memo);
      }
      if (!memo.has(messageId)) total += 1;
      memo.set(messageId, entry);
    },
  });
}

export function createTokenCache(maxEntries = DEFAULT_TOKEN_CACHE_ENTRIES): TokenCache {
  const scopes = createLru<Map<string, ItemStats>>(SCOPES);
  const renderMemo = createRenderMemos(Math.max(2, Math.floor(maxEntries / 2)));
  return {
    renderMemo,
    scope(name) {
      let map = scopes.get(name);
      if (map === undefined || map.size > maxEntries) {
        map = new Map();
        scopes.set(name, map);
      }
      return map;
    },
    numbers: createLru(maxEntries),
    maxEntries,
  };
}

/**
 * Rendered pages by key, bounded by their total bytes (pages are big: a count bound would not
 * bound memory). Least recently used first out. Implements `PageCache`.
 */
export interface BytesBoundedCache {
  get(key: string): readonly Buffer[] | undefined;
  set(key: string, pages: readonly Buffer[]): void;
  readonly bytes: number;
}

export const DEFAULT_PAGE_CACHE_BYTES = 64 * 1024 * 1024;

export function createPageCache(maxBytes = DEFAULT_PAGE_CACHE_BYTES): BytesBoundedCache {
  // An entry bigger than the whole bound is not kept (lru-cache refuses it).
  const cache = new LRUCache<string, readonly Buffer[]>({
    maxSize: maxBytes,
    sizeCalculation: (pages) =>
      Math.max(
        1,
        pages.reduce((n, p) => n + p.length, 0),
      ),
  });
  return {
    get: (key) => cache.get(key),
    set: (key, pages) => void cache.set(key, pages),
    get bytes() {
      return cache.calculatedSize;
    },
  };
}
