/**
 * The write path's floor, written by hand (issue #25): what storing a turn costs at least when
 * each turn's bytes are JSON-parsed once, hashed once (SHA-256, chained on the previous hash of
 * its conversation), sealed once (AES-256-GCM with the conversation's key) and inserted as one row
 * with a prepared statement, the turns of one batch in one transaction (one fsync per batch at
 * synchronous=FULL). Same pragmas as the log (WAL, the chosen synchronous). No library code of
 * Arbor's runs here except the pragma helper, so the figure is what the machine can do.
 */
import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import { applyPragmas } from '@arbor/event-store/sqlite/schema';
import { type SynchronousMode } from '@arbor/event-store/sqlite';

export interface FloorTurn {
  conversation: string;
  /** The turn as it arrives: its JSON body. */
  bytes: Buffer;
}

export interface Floor {
  /** Parses, hashes, seals each turn once; inserts the batch in one transaction. */
  commit(batch: readonly FloorTurn[]): void;
  close(): void;
}

const ZERO = Buffer.alloc(32);

export const openFloor = (file: string, synchronous: SynchronousMode): Floor => {
  const db = new Database(file);
  applyPragmas(db, { synchronous, busyTimeoutMs: 5000 });
  db.exec(`CREATE TABLE IF NOT EXISTS turns (
    seq  INTEGER PRIMARY KEY,
    conv TEXT    NOT NULL,
    rev  INTEGER NOT NULL,
    hash BLOB    NOT NULL,
    iv   BLOB    NOT NULL,
    body BLOB    NOT NULL,
    UNIQUE (conv, rev)
  ) STRICT`);
  const insert = db.prepare('INSERT INTO turns (conv, rev, hash, iv, body) VALUES (?, ?, ?, ?, ?)');
  const heads = new Map<string, { key: Buffer; rev: number; hash: Buffer }>();
  let parsed = 0;
  const write = db.transaction((rows: readonly unknown[][]) => {
    for (const row of rows) insert.run(...row);
  });
  return {
    commit(batch) {
      const rows = batch.map((turn) => {
        // Parsed once (a real writer would check it); counted so the parse is not dead code.
        parsed += (JSON.parse(turn.bytes.toString('utf8')) as unknown[]).length;
        let head = heads.get(turn.conversation);
        if (head === undefined) {
          head = { key: randomBytes(32), rev: -1, hash: ZERO };
          heads.set(turn.conversation, head);
        }
        const hash = createHash('sha256').update(head.hash).update(turn.bytes).digest();
        const iv = randomBytes(12);
        const cipher = createCipheriv('aes-256-gcm', head.key, iv);
        const body = Buffer.concat([
          cipher.update(turn.bytes),
          cipher.final(),
          cipher.getAuthTag(),
        ]);
        head.rev += 1;
        head.hash = hash;
        return [turn.conversation, head.rev, hash, iv, body];
      });
      write.immediate(rows);
    },
    close() {
      if (parsed < 0) throw new Error('unreachable');
      db.close();
    },
  };
};
