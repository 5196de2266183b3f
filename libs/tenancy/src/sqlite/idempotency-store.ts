import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

export interface StoredAnswer {
  fingerprint: string;
  status: number;
  /** The answer as sent, less any secret it carried (the route's `secret` field). */
  body: string;
  /** The tenant the answer is about, when the caller is not it (the admin's tenant and key routes). */
  subject?: string | null;
}

/** What a claim on a key found: the first answer, or another process running it, or the key. */
export type Claim =
  | { kind: 'answer'; answer: StoredAnswer }
  | { kind: 'in_progress'; fingerprint: string }
  | { kind: 'claimed' };

/** A claim older than this is a process that died holding it: taken over. */
export const CLAIM_STALE_MS = 60_000;

/** SQL of one open memo file. */
interface Statements {
  readonly db: Database.Database;
  readonly get: Database.Statement<[string, string, number]>;
  readonly put: Database.Statement<[string, string, string, number, string, number, string | null]>;
  readonly expire: Database.Statement<[number]>;
  readonly claim: (tenant: string, key: string, fingerprint: string) => Claim;
  readonly store: (tenant: string, key: string, answer: StoredAnswer) => void;
  readonly release: Database.Statement<[string, string, string]>;
}

export const IDEMPOTENCY_FILE = 'idempotency.sqlite';

/**
 * Idempotency keys and the answer each first got, in `<dataDir>/idempotency.sqlite` beside the
 * log: durable across restarts, scoped by tenant, expired after a TTL. Opened on first use, so a
 * process that never takes a key (most CLI commands) creates no file; forgetting in a data dir
 * that has none is a no-op.
 *
 * Not in the log: a memo of one HTTP exchange has an expiry an append-only log cannot have, and
 * copies an answer the log can rebuild. Losing the file loses only deduplication within the TTL.
 */
export class IdempotencyStore {
  private sql: Statements | null = null;
  /** This process's mark on the claims it holds. */
  private readonly owner = `${process.pid}:${crypto.randomUUID()}`;
  private writes = 0;
  private closed = false;

  constructor(
    private readonly dataDir: string,
    private readonly ttlMs: number,
    private readonly synchronous: string,
  ) {}

  private get file(): string {
    return path.join(this.dataDir, IDEMPOTENCY_FILE);
  }

  private open(): Statements {
    if (this.sql !== null) return this.sql;
    if (this.closed) throw new Error('the idempotency store is closed');
    fs.mkdirSync(this.dataDir, { recursive: true });
    const db = new Database(this.file);
    // Several processes may share the data dir and open it at once (it opens on first use): every
    // step from the WAL switch on waits for another's lock rather than failing.
    db.pragma('busy_timeout = 5000');
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${this.synchronous}`);
    // Forgotten answers are overwritten, not left in free pages.
    db.pragma('secure_delete = ON');
    // Two processes may open a new file at once: the schema is made (and old files migrated) under
    // one write lock, so the second sees the first's tables rather than racing its ALTER.
    let migrated = false;
    db.transaction(() => {
      db.exec(`CREATE TABLE IF NOT EXISTS idempotency_keys (
        tenant TEXT NOT NULL,
        key TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        status INTEGER NOT NULL,
        body TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        subject TEXT,
        PRIMARY KEY (tenant, key)
      ) WITHOUT ROWID`);
      const columns = db.prepare('PRAGMA table_info(idempotency_keys)').all() as { name: string }[];
      if (!columns.some((c) => c.name === 'subject')) {
        // Files without the column kept the admin's answers whole, API keys included: dropped.
        db.exec('ALTER TABLE idempotency_keys ADD COLUMN subject TEXT');
        db.exec("DELETE FROM idempotency_keys WHERE tenant LIKE 'admin:%'");
        migrated = true;
      }
      // A key being run now, by which process: the row every process claims before running.
      db.exec(`CREATE TABLE IF NOT EXISTS idempotency_claims (
        tenant TEXT NOT NULL,
        key TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        owner TEXT NOT NULL,
        claimed_at INTEGER NOT NULL,
        PRIMARY KEY (tenant, key)
      ) WITHOUT ROWID`);
    }).immediate();
    if (migrated) db.pragma('wal_checkpoint(TRUNCATE)');
    const get = db.prepare<[string, string, number]>(
      'SELECT fingerprint, status, body FROM idempotency_keys WHERE tenant = ? AND key = ? AND created_at >= ?',
    );
    const put = db.prepare<[string, string, string, number, string, number, string | null]>(
      'INSERT OR REPLACE INTO idempotency_keys (tenant, key, fingerprint, status, body, created_at, subject) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    const expire = db.prepare<[number]>('DELETE FROM idempotency_keys WHERE created_at < ?');
    expire.run(Date.now() - this.ttlMs);
    const claimGet = db.prepare<[string, string, number]>(
      'SELECT fingerprint, owner FROM idempotency_claims WHERE tenant = ? AND key = ? AND claimed_at >= ?',
    );
    const claimPut = db.prepare<[string, string, string, string, number]>(
      'INSERT OR REPLACE INTO idempotency_claims (tenant, key, fingerprint, owner, claimed_at) VALUES (?, ?, ?, ?, ?)',
    );
    const release = db.prepare<[string, string, string]>(
      'DELETE FROM idempotency_claims WHERE tenant = ? AND key = ? AND owner = ?',
    );
    const claim = db.transaction((tenant: string, key: string, fingerprint: string): Claim => {
      const answer = get.get(tenant, key, Date.now() - this.ttlMs) as StoredAnswer | undefined;
      if (answer !== undefined) return { kind: 'answer', answer };
      const other = claimGet.get(tenant, key, Date.now() - CLAIM_STALE_MS) as
        { fingerprint: string; owner: string } | undefined;
      if (other !== undefined && other.owner !== this.owner)
        return { kind: 'in_progress', fingerprint: other.fingerprint };
      claimPut.run(tenant, key, fingerprint, this.owner, Date.now());
      return { kind: 'claimed' };
    });
    const store = db.transaction((tenant: string, key: string, answer: StoredAnswer) => {
      put.run(
        tenant,
        key,
        answer.fingerprint,
        answer.status,
        answer.body,
        Date.now(),
        answer.subject ?? null,
      );
      release.run(tenant, key, this.owner);
    });
    this.sql = {
      db,
      get,
      put,
      expire,
      // BEGIN IMMEDIATE: the write lock is taken before the read, so two processes cannot both
      // find the key free.
      claim: (tenant, key, fingerprint) => claim.immediate(tenant, key, fingerprint),
      store: (tenant, key, answer) => store.immediate(tenant, key, answer),
      release,
    };
    return this.sql;
  }

  /**
   * Across every process sharing the data dir: the stored answer, or another process's claim, or
   * (one transaction, under SQLite's write lock) this process's claim on the key.
   */
  claim(tenant: string, key: string, fingerprint: string): Claim {
    return this.open().claim(tenant, key, fingerprint);
  }

  /** Gives up this process's claim without an answer (the request was refused or failed). */
  release(tenant: string, key: string): void {
    this.open().release.run(tenant, key, this.owner);
  }

  get(tenant: string, key: string): StoredAnswer | undefined {
    return this.open().get.get(tenant, key, Date.now() - this.ttlMs) as StoredAnswer | undefined;
  }

  /** Stores the first answer and drops this process's claim, in one transaction. */
  put(tenant: string, key: string, answer: StoredAnswer): void {
    const sql = this.open();
    sql.store(tenant, key, answer);
    if (++this.writes % 1000 === 0) sql.expire.run(Date.now() - this.ttlMs);
  }

  /** Deletes, then truncates the WAL so the forgotten bytes leave it too. */
  private forget(where: string, ...args: string[]): void {
    if (this.sql === null && !fs.existsSync(this.file)) return;
    const { db } = this.open();
    db.prepare(`DELETE FROM idempotency_keys WHERE ${where}`).run(...args);
    db.pragma('wal_checkpoint(TRUNCATE)');
  }

  /**
   * Every answer of the tenant, its own and the admin's about it: after its erasure, retries are
   * run again (and refused) instead of answered from the memo.
   */
  forgetTenant(tenantId: string): void {
    this.forget('tenant = ? OR subject = ?', tenantId, tenantId);
  }

  /**
   * What may quote an erased conversation (its title, a failed input): memos are not indexed by
   * conversation, so every answer of its tenant.
   */
  forgetConversation(tenantId: string, _conversationId: string): void {
    this.forget('tenant = ?', tenantId);
  }

  /** The admin's answers that issued the tenant's keys (after one of them is revoked). */
  forgetIssuedKeys(tenantId: string): void {
    this.forget('subject = ?', tenantId);
  }

  close(): void {
    this.closed = true;
    if (this.sql?.db.open) this.sql.db.close();
    this.sql = null;
  }
}
