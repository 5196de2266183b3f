import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

export interface StoredAnswer {
  fingerprint: string;
  status: number;
  body: string;
}

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
  private readonly putStmt: Database.Statement<[string, string, string, number, string, number]>;
  private readonly expireStmt: Database.Statement<[number]>;
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
    this.db.exec(`CREATE TABLE IF NOT EXISTS idempotency_keys (
      tenant TEXT NOT NULL,
      key TEXT NOT NULL,
      fingerprint TEXT NOT NULL,
      status INTEGER NOT NULL,
      body TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      PRIMARY KEY (tenant, key)
    ) WITHOUT ROWID`);
    this.getStmt = this.db.prepare(
      'SELECT fingerprint, status, body FROM idempotency_keys WHERE tenant = ? AND key = ? AND created_at >= ?',
    );
    this.putStmt = this.db.prepare(
      'INSERT OR REPLACE INTO idempotency_keys (tenant, key, fingerprint, status, body, created_at) VALUES (?, ?, ?, ?, ?, ?)',
    );
    this.expireStmt = this.db.prepare('DELETE FROM idempotency_keys WHERE created_at < ?');
    this.expireStmt.run(Date.now() - ttlMs);
  }

  get(tenant: string, key: string): StoredAnswer | undefined {
    return this.getStmt.get(tenant, key, Date.now() - this.ttlMs) as StoredAnswer | undefined;
  }

  put(tenant: string, key: string, answer: StoredAnswer): void {
    this.putStmt.run(tenant, key, answer.fingerprint, answer.status, answer.body, Date.now());
    if (++this.writes % 1000 === 0) this.expireStmt.run(Date.now() - this.ttlMs);
  }

  /**
   * Forgets every stored answer of a tenant (after an erasure: an answer may quote the erased
   * conversation's title or failed input), then checkpoints and truncates the WAL. Retries of those
   * requests within the TTL are then run again rather than answered from the memo.
   */
  forgetTenant(tenant: string): void {
    this.db.prepare('DELETE FROM idempotency_keys WHERE tenant = ?').run(tenant);
    this.db.pragma('wal_checkpoint(TRUNCATE)');
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
