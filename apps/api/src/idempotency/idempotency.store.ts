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

/**
 * Idempotency keys and the answer each first got, in `<dataDir>/idempotency.sqlite` beside the
 * log: durable across restarts, scoped by tenant, expired after a TTL.
 *
 * Not in the log itself, on purpose: the log records what happened to conversations (every event
 * there is a domain fact, kept forever and replayed by every projection and by `verify`); a key is
 * a transport-level memo of one HTTP exchange, with an expiry an append-only log cannot have,
 * holding a copy of an answer the log can already rebuild. Losing this file loses only
 * deduplication of retries within the TTL, never a fact.
 */
export class IdempotencyStore {
  private readonly db: Database.Database;
  private readonly getStmt: Database.Statement<[string, string, number]>;
  private readonly putStmt: Database.Statement<
    [string, string, string, number, string, number, string | null]
  >;
  private readonly expireStmt: Database.Statement<[number]>;
  private readonly claimGet: Database.Statement<[string, string, number]>;
  private readonly claimPut: Database.Statement<[string, string, string, string, number]>;
  private readonly claimDel: Database.Statement<[string, string, string]>;
  private readonly claimTx: (tenant: string, key: string, fingerprint: string) => Claim;
  private readonly storeTx: (tenant: string, key: string, answer: StoredAnswer) => void;
  /** This process's mark on the claims it holds. */
  private readonly owner = `${process.pid}:${crypto.randomUUID()}`;
  private writes = 0;

  constructor(
    dataDir: string,
    private readonly ttlMs: number,
    synchronous: string,
  ) {
    fs.mkdirSync(dataDir, { recursive: true });
    this.db = new Database(path.join(dataDir, 'idempotency.sqlite'));
    this.db.pragma('journal_mode = WAL');
    this.db.pragma(`synchronous = ${synchronous}`);
    // Erasure forgets stored answers: their bytes are overwritten, not left in free pages.
    this.db.pragma('secure_delete = ON');
    // Several processes may share the data dir: a claim waits for another's transaction.
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(`CREATE TABLE IF NOT EXISTS idempotency_keys (
      tenant TEXT NOT NULL,
      key TEXT NOT NULL,
      fingerprint TEXT NOT NULL,
      status INTEGER NOT NULL,
      body TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      PRIMARY KEY (tenant, key)
    ) WITHOUT ROWID`);
    // Files written before answers named their subject get the column (null: the caller's own).
    const columns = this.db.prepare('PRAGMA table_info(idempotency_keys)').all() as {
      name: string;
    }[];
    if (!columns.some((c) => c.name === 'subject')) {
      // Such files kept the admin's answers whole, API keys included: dropped (a retry reruns).
      this.db.transaction(() => {
        this.db.exec('ALTER TABLE idempotency_keys ADD COLUMN subject TEXT');
        this.db.exec("DELETE FROM idempotency_keys WHERE tenant LIKE 'admin:%'");
      })();
      this.db.pragma('wal_checkpoint(TRUNCATE)');
    }
    this.getStmt = this.db.prepare(
      'SELECT fingerprint, status, body FROM idempotency_keys WHERE tenant = ? AND key = ? AND created_at >= ?',
    );
    this.putStmt = this.db.prepare(
      'INSERT OR REPLACE INTO idempotency_keys (tenant, key, fingerprint, status, body, created_at, subject) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    this.expireStmt = this.db.prepare('DELETE FROM idempotency_keys WHERE created_at < ?');
    this.expireStmt.run(Date.now() - ttlMs);
    // A key being run now, by which process: the row every process claims before running.
    this.db.exec(`CREATE TABLE IF NOT EXISTS idempotency_claims (
      tenant TEXT NOT NULL,
      key TEXT NOT NULL,
      fingerprint TEXT NOT NULL,
      owner TEXT NOT NULL,
      claimed_at INTEGER NOT NULL,
      PRIMARY KEY (tenant, key)
    ) WITHOUT ROWID`);
    this.claimGet = this.db.prepare(
      'SELECT fingerprint, owner FROM idempotency_claims WHERE tenant = ? AND key = ? AND claimed_at >= ?',
    );
    this.claimPut = this.db.prepare(
      'INSERT OR REPLACE INTO idempotency_claims (tenant, key, fingerprint, owner, claimed_at) VALUES (?, ?, ?, ?, ?)',
    );
    this.claimDel = this.db.prepare(
      'DELETE FROM idempotency_claims WHERE tenant = ? AND key = ? AND owner = ?',
    );
    const claim = this.db.transaction((tenant: string, key: string, fingerprint: string): Claim => {
      const answer = this.get(tenant, key);
      if (answer !== undefined) return { kind: 'answer', answer };
      const other = this.claimGet.get(tenant, key, Date.now() - CLAIM_STALE_MS) as
        { fingerprint: string; owner: string } | undefined;
      if (other !== undefined && other.owner !== this.owner)
        return { kind: 'in_progress', fingerprint: other.fingerprint };
      this.claimPut.run(tenant, key, fingerprint, this.owner, Date.now());
      return { kind: 'claimed' };
    });
    // BEGIN IMMEDIATE: the write lock is taken before the read, so two processes cannot both
    // find the key free.
    this.claimTx = (tenant, key, fingerprint) => claim.immediate(tenant, key, fingerprint);
    const store = this.db.transaction((tenant: string, key: string, answer: StoredAnswer) => {
      this.putStmt.run(
        tenant,
        key,
        answer.fingerprint,
        answer.status,
        answer.body,
        Date.now(),
        answer.subject ?? null,
      );
      this.claimDel.run(tenant, key, this.owner);
    });
    this.storeTx = (tenant, key, answer) => store.immediate(tenant, key, answer);
  }

  /**
   * Across every process sharing the data dir: the stored answer, or another process's claim, or
   * (one transaction, under SQLite's write lock) this process's claim on the key.
   */
  claim(tenant: string, key: string, fingerprint: string): Claim {
    return this.claimTx(tenant, key, fingerprint);
  }

  /** Gives up this process's claim without an answer (the request was refused or failed). */
  release(tenant: string, key: string): void {
    this.claimDel.run(tenant, key, this.owner);
  }

  get(tenant: string, key: string): StoredAnswer | undefined {
    return this.getStmt.get(tenant, key, Date.now() - this.ttlMs) as StoredAnswer | undefined;
  }

  /** Stores the first answer and drops this process's claim, in one transaction. */
  put(tenant: string, key: string, answer: StoredAnswer): void {
    this.storeTx(tenant, key, answer);
    if (++this.writes % 1000 === 0) this.expireStmt.run(Date.now() - this.ttlMs);
  }

  /**
   * Forgets every stored answer of a tenant, its own and the admin's about it (after an erasure:
   * an answer may quote the erased conversation's title or failed input; after a key is revoked
   * or the tenant erased, the answers that issued its keys), then checkpoints and truncates the
   * WAL. Retries of those requests within the TTL are then run again rather than answered from
   * the memo (for an erased tenant: refused).
   */
  forgetTenant(tenant: string): void {
    this.db
      .prepare('DELETE FROM idempotency_keys WHERE tenant = ? OR subject = ?')
      .run(tenant, tenant);
    this.db.pragma('wal_checkpoint(TRUNCATE)');
  }

  /** Forgets the admin's stored answers about a tenant (the answers that issued its keys). */
  forgetSubject(tenant: string): void {
    this.db.prepare('DELETE FROM idempotency_keys WHERE subject = ?').run(tenant);
    this.db.pragma('wal_checkpoint(TRUNCATE)');
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
