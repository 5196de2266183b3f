/** Messages are immutable: a measurement keyed by its rendering never goes stale, only old. */
import { LRUCache } from 'lru-cache';
import type { RenderedEntry, RenderMemo } from './view';

export interface Lru<V> {
  get(key: string): V | undefined;
  set(key: string, value: V): void;
  readonly size: number;
}

export function createLru<V extends NonNullable<unknown>>(maxEntries: number): Lru<V> {
  if (!Number.isInteger(maxEntries) || maxEntries < 1) {
    throw new RangeError('maxEntries must be an integer of at least 1');
  }
  return new LRUCache<string, V>({ max: maxEntries });
}

export interface ItemStats {
  tokens: number;
  toolResultTokens: number;
  imageTokens: number;
  images: number;
  imageBytes: number;
  imageChars: number;
  maxImageBytes: number;
  maxImageBase64: number;
  maxImageSide: number;
  reasoningTokens: number;
  jsonBytes: number;
  digest: Buffer;
}

/** One map per scope keyed by rendered identity (for an untouched message its id: no key built). */
export interface TokenCache {
  scope(name: string): Map<string, ItemStats>;
  numbers: Lru<number>;
  readonly maxEntries: number;
  renderMemo?(conversation: string): RenderMemo;
}

export const DEFAULT_TOKEN_CACHE_ENTRIES = 100_000;
const SCOPES = 256;

/** When one more rendering would go over `maxEntries`, all are forgotten at once. */
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

/** Bounded by total bytes: pages are big, so a count bound would not bound memory. */
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
