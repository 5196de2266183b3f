import Database from 'better-sqlite3';
import { messagesHaveRowid, migrateConversationTables } from './schema';

const OLD_LAYOUT = `CREATE TABLE rm_messages (
  tenant_id TEXT NOT NULL, conversation_id TEXT NOT NULL, id TEXT NOT NULL, parent_id TEXT,
  role TEXT NOT NULL, depth INTEGER NOT NULL, seq INTEGER NOT NULL, turn_id TEXT NOT NULL,
  body TEXT NOT NULL, PRIMARY KEY (tenant_id, conversation_id, id)
) WITHOUT ROWID, STRICT`;

const indexesOf = (db: Database.Database) =>
  (
    db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'rm_messages'")
      .all() as { name: string }[]
  ).map((r) => r.name);

const insert = (db: Database.Database, id: string) =>
  db
    .prepare(
      `INSERT INTO rm_messages (tenant_id, conversation_id, id, parent_id, role, depth, seq, turn_id, body)
       VALUES ('t', 'c', ?, NULL, 'user', 0, 0, 'turn', '{}')`,
    )
    .run(id);

describe('rm_messages layout', () => {
  it('a new file gets the insertion-ordered table with a unique id index', () => {
    const db = new Database(':memory:');
    migrateConversationTables(db);
    expect(messagesHaveRowid(db)).toBe(true);
    expect(indexesOf(db)).toContain('rm_messages_by_id');
    insert(db, 'm1');
    // The id stays unique per conversation, as the older primary key made it.
    expect(() => insert(db, 'm1')).toThrow(/UNIQUE/);
    db.close();
  });

  it('a file with the older layout keeps it, without a second id index', () => {
    const db = new Database(':memory:');
    db.exec(OLD_LAYOUT);
    migrateConversationTables(db);
    expect(messagesHaveRowid(db)).toBe(false);
    expect(indexesOf(db)).not.toContain('rm_messages_by_id');
    insert(db, 'm1');
    expect(() => insert(db, 'm1')).toThrow(/UNIQUE|PRIMARY/);
    db.close();
  });
});
