/**
 * The key store: one data key per stream, wrapped by the master key, in a mutable SQLite file
 * beside the log (`<dataDir>/keys.sqlite`). It is the one place Arbor deletes: erasing a stream
 * deletes its wrapped key (with `secure_delete`, so SQLite overwrites the freed bytes, and a
 * rollback journal that is removed at commit) and keeps a content-free tombstone (who, when, why).
 * Unwrapped keys live only in memory (a bounded LRU), never in a file.
 *
 * Shared by every process on one data dir (replicas, workers, the CLI): a rollback journal with a
 * busy timeout (a writer waits for another's transaction instead of failing), and every lookup
 * reads the row, so an erasure committed by one process is seen by the next read of any other.
 */
import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { LRUCache } from 'lru-cache';
import { open, seal } from './aead';
import { KEY_BYTES } from './master-key';

export const KEY_STORE_FILE = 'keys.sqlite';

export const keyStoreDataPath = (dataDir: string): string => path.join(dataDir, KEY_STORE_FILE);

/** A stream's content was erased: its key is gone. */
export class ContentErasedError extends Error {
  constructor(readonly streamName: string) {
    super(`the content of ${streamName} was erased`);
    this.name = 'ContentErasedError';
  }
}

export interface ErasureRecord {
  stream: string;
  erasedAt: string;
  actor: string;
  reason: string;
}

export interface KeyStore {
  /** The stream's data key, created on first use; ContentErasedError once erased. */
  keyFor(stream: string): Buffer;
  /** The key if there is one, `erased` after erasure, null when the stream never had one. */
  existingKey(stream: string): Buffer | 'erased' | null;
  /** Destroys the key (idempotent) and records why; true when this call destroyed it. */
  erase(stream: string, record: Omit<ErasureRecord, 'stream'>): boolean;
  erasure(stream: string): ErasureRecord | null;
  /** Forgets (and zeroes) this process's unwrapped copy of the key, if any. */
  dropCached(stream: string): void;
  /** Tombstones of every stream starting with `prefix`. */
  erasures(prefix: string): ErasureRecord[];
  /** How many live (not erased) keys are stored. */
  liveKeys(): number;
  close(): void;
}

const wrapAad = (stream: string): Buffer => Buffer.from(`arbor-key/1|${stream}`, 'utf8');

interface Row {
  wrapped: Buffer | null;
  erased_at: string | null;
  actor: string | null;
  reason: string | null;
}

export const openSqliteKeyStore = (
  file: string,
  masterKey: Buffer,
  options: { cacheKeys?: number } = {},
): KeyStore => {
  if (masterKey.length !== KEY_BYTES) throw new TypeError('the master key must be 32 bytes');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  // A rollback journal (deleted at commit) rather than a WAL that would keep old pages around,
  // and secure_delete so a deleted key's bytes are overwritten in the file, freelist included.
  db.pragma('journal_mode = DELETE');
  db.pragma('secure_delete = ON');
  db.pragma('synchronous = FULL');
  db.pragma('busy_timeout = 5000');
  db.exec(`CREATE TABLE IF NOT EXISTS content_keys (
    stream TEXT PRIMARY KEY,
    wrapped BLOB,
    created INTEGER NOT NULL,
    erased_at TEXT,
    actor TEXT,
    reason TEXT
  ) STRICT`);
  const s = {
    get: db.prepare('SELECT wrapped, erased_at, actor, reason FROM content_keys WHERE stream = ?'),
    insert: db.prepare(
      'INSERT OR IGNORE INTO content_keys (stream, wrapped, created) VALUES (?, ?, ?)',
    ),
    erase: db.prepare(
      `INSERT INTO content_keys (stream, wrapped, created, erased_at, actor, reason) VALUES (@stream, NULL, @now, @at, @actor, @reason)
       ON CONFLICT (stream) DO UPDATE SET wrapped = NULL, erased_at = @at, actor = @actor, reason = @reason
       WHERE content_keys.erased_at IS NULL`,
    ),
    erasures: db.prepare(
      `SELECT stream, erased_at, actor, reason FROM content_keys WHERE erased_at IS NOT NULL AND substr(stream, 1, length(@p)) = @p ORDER BY stream`,
    ),
    live: db.prepare('SELECT COUNT(*) AS n FROM content_keys WHERE wrapped IS NOT NULL'),
  };
  const cache = new LRUCache<string, Buffer>({ max: options.cacheKeys ?? 10_000 });

  const unwrap = (stream: string, wrapped: Buffer): Buffer => {
    const key = open(masterKey, wrapped, wrapAad(stream));
    cache.set(stream, key);
    return key;
  };

  const dropCached = (stream: string): void => {
    const cached = cache.get(stream);
    cache.delete(stream);
    cached?.fill(0);
  };

  // The row is read on every call, the cache only spares the unwrap: several processes share
  // this file (replicas, projector workers, the CLI), and a key another process erased must
  // stop opening content here at once — a cached key alone would keep opening it until evicted.
  // One indexed point read on a local file; the sealed store asks once per stream per read call.
  const existingKey = (stream: string): Buffer | 'erased' | null => {
    const row = s.get.get(stream) as Row | undefined;
    if (row === undefined) {
      dropCached(stream);
      return null;
    }
    if (row.erased_at !== null || row.wrapped === null) {
      dropCached(stream);
      return 'erased';
    }
    return cache.get(stream) ?? unwrap(stream, row.wrapped);
  };

  return {
    keyFor(stream) {
      const existing = existingKey(stream);
      if (existing === 'erased') throw new ContentErasedError(stream);
      if (existing !== null) return existing;
      const key = randomBytes(KEY_BYTES);
      s.insert.run(stream, seal(masterKey, key, wrapAad(stream)), Date.now());
      key.fill(0);
      // Another process may have created it first: the stored one wins.
      const again = existingKey(stream);
      if (again === 'erased') throw new ContentErasedError(stream);
      if (again === null) throw new Error(`key store: no key for ${stream} after insert`);
      return again;
    },
    existingKey,
    dropCached,
    erase(stream, record) {
      dropCached(stream);
      const r = s.erase.run({ stream, now: Date.now(), ...record, at: record.erasedAt });
      return r.changes > 0;
    },
    erasure(stream) {
      const row = s.get.get(stream) as Row | undefined;
      if (row === undefined || row.erased_at === null) return null;
      return { stream, erasedAt: row.erased_at, actor: row.actor ?? '', reason: row.reason ?? '' };
    },
    erasures(prefix) {
      return (s.erasures.all({ p: prefix }) as (Row & { stream: string })[]).map((row) => ({
        stream: row.stream,
        erasedAt: row.erased_at ?? '',
        actor: row.actor ?? '',
        reason: row.reason ?? '',
      }));
    },
    liveKeys: () => (s.live.get() as { n: number }).n,
    close() {
      for (const key of cache.values()) key.fill(0);
      cache.clear();
      db.close();
    },
  };
};
