/** Per-stream data keys wrapped by the master key, in `<dataDir>/keys.sqlite` (README: Key stores). */
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

/** A stored data key could not be unwrapped: wrong master key, or altered bytes. */
export class KeyUnwrapError extends Error {
  constructor(
    readonly streamName: string,
    override readonly cause?: unknown,
  ) {
    super(
      `the data key of ${streamName} cannot be unwrapped: the master key is not the one it was ` +
        'wrapped with (check ARBOR_MASTER_KEY / master.key on every machine), or the stored key was altered',
    );
    this.name = 'KeyUnwrapError';
  }
}

export interface ErasureRecord {
  stream: string;
  erasedAt: string;
  actor: string;
  reason: string;
}

/** One data key per stream, outside the log; async so a networked store can implement it. */
export interface KeyStore {
  /** The stream's data key, created on first use; ContentErasedError once erased. */
  keyFor(stream: string): Promise<Buffer>;
  /** The key, `erased`, or null (never created); sees another process's erasure next call. */
  existingKey(stream: string): Promise<Buffer | 'erased' | null>;
  /** Destroys the key (idempotent) and records why; true for the one call that recorded it. */
  erase(stream: string, record: Omit<ErasureRecord, 'stream'>): Promise<boolean>;
  erasure(stream: string): Promise<ErasureRecord | null>;
  /** Forgets (and zeroes) this process's unwrapped copy of the key, if any. */
  dropCached(stream: string): void;
  /** Erasure records of every stream starting with `prefix` (an operator's call: see each store's cost). */
  erasures(prefix: string): Promise<ErasureRecord[]>;
  /** How many live (not erased) keys are stored (an operator's call: see each store's cost). */
  liveKeys(): Promise<number>;
  close(): Promise<void>;
}

/** Binds a wrapped key to its stream, so it cannot be moved to another. */
export const wrapAad = (stream: string): Buffer => Buffer.from(`arbor-key/1|${stream}`, 'utf8');

/** A fresh data key's wrapped form (the raw key is zeroed before returning). */
export const newWrappedKey =
  (masterKey: Buffer): ((stream: string) => Buffer) =>
  (stream) => {
    const key = randomBytes(KEY_BYTES);
    try {
      return seal(masterKey, key, wrapAad(stream));
    } finally {
      key.fill(0);
    }
  };

/** Unwraps a stored key; KeyUnwrapError when the master key (or the bytes) is wrong. */
export const unwrapKey = (masterKey: Buffer, stream: string, wrapped: Buffer): Buffer => {
  try {
    return open(masterKey, wrapped, wrapAad(stream));
  } catch (e) {
    throw new KeyUnwrapError(stream, e);
  }
};

/** SQLite's file change counter (u32 at offset 24), bumped by every rollback-journal commit. */
export const fileChangeCounter = (
  file: string,
): { read: () => number | null; close: () => void } => {
  let fd: number | null = fs.openSync(file, 'r');
  const header = Buffer.alloc(4);
  return {
    read: () =>
      fd !== null && fs.readSync(fd, header, 0, 4, 24) === 4 ? header.readUInt32BE(0) : null,
    // Idempotent: a store may be closed by more than one owner at shutdown.
    close: () => {
      if (fd !== null) fs.closeSync(fd);
      fd = null;
    },
  };
};

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
  // Rollback journal + secure_delete: a deleted key's bytes are overwritten, no WAL copy left.
  const journal = db.pragma('journal_mode = DELETE', { simple: true });
  if (journal !== 'delete') {
    db.close();
    throw new Error(`key store ${file}: journal_mode is ${String(journal)}, not delete`);
  }
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
  interface Seen {
    row: Row | undefined;
    counter: number | null;
    key: Buffer | null;
  }
  const seen = new LRUCache<string, Seen>({
    max: options.cacheKeys ?? 10_000,
    // Only deliberate drops zero the key: an evicted one may still be in use by its read call.
    dispose: (entry, _stream, reason) => {
      if (reason === 'delete') entry.key?.fill(0);
    },
  });
  const changeCounter = fileChangeCounter(file);

  const wrapNew = newWrappedKey(masterKey);

  const dropCached = (stream: string): void => {
    seen.delete(stream);
  };

  // A cached row answers only while the change counter (read before the row) is unchanged.
  // Entries are updated in place: a replaced entry's key would be disposed.
  const entryOf = (stream: string): Seen => {
    const counter = changeCounter.read();
    const entry = seen.get(stream);
    if (entry !== undefined && counter !== null && entry.counter === counter) return entry;
    const row = s.get.get(stream) as Row | undefined;
    if (entry === undefined) {
      const fresh: Seen = { row, counter, key: null };
      seen.set(stream, fresh);
      return fresh;
    }
    entry.row = row;
    entry.counter = counter;
    if (row === undefined || row.wrapped === null || row.erased_at !== null) {
      entry.key?.fill(0);
      entry.key = null;
    }
    return entry;
  };

  const existingKeyNow = (stream: string): Buffer | 'erased' | null => {
    const entry = entryOf(stream);
    const { row } = entry;
    if (row === undefined) return null;
    if (row.erased_at !== null || row.wrapped === null) return 'erased';
    entry.key ??= unwrapKey(masterKey, stream, row.wrapped);
    return entry.key;
  };

  return {
    async keyFor(stream) {
      const existing = existingKeyNow(stream);
      if (existing === 'erased') throw new ContentErasedError(stream);
      if (existing !== null) return existing;
      s.insert.run(stream, wrapNew(stream), Date.now());
      // Another process may have created it first: the stored one wins.
      const again = existingKeyNow(stream);
      if (again === 'erased') throw new ContentErasedError(stream);
      if (again === null) throw new Error(`key store: no key for ${stream} after insert`);
      return again;
    },
    existingKey: async (stream) => existingKeyNow(stream),
    dropCached,
    async erase(stream, record) {
      dropCached(stream);
      const r = s.erase.run({ stream, now: Date.now(), ...record, at: record.erasedAt });
      return r.changes > 0;
    },
    async erasure(stream) {
      const { row } = entryOf(stream);
      if (row === undefined || row.erased_at === null) return null;
      return { stream, erasedAt: row.erased_at, actor: row.actor ?? '', reason: row.reason ?? '' };
    },
    async erasures(prefix) {
      return (s.erasures.all({ p: prefix }) as (Row & { stream: string })[]).map((row) => ({
        stream: row.stream,
        erasedAt: row.erased_at ?? '',
        actor: row.actor ?? '',
        reason: row.reason ?? '',
      }));
    },
    liveKeys: async () => (s.live.get() as { n: number }).n,
    async close() {
      seen.clear();
      changeCounter.close();
      db.close();
    },
  };
};
