import Database from 'better-sqlite3';
import { messagesHoldBodies, migrateConversationTables } from './schema';

/** The two layouts that kept a copy of each body: keyed by id, then in insertion order. */
const OLDER_LAYOUTS = {
  'keyed by id': `CREATE TABLE rm_messages (
    tenant_id TEXT NOT NULL, conversation_id TEXT NOT NULL, id TEXT NOT NULL, parent_id TEXT,
    role TEXT NOT NULL, depth INTEGER NOT NULL, seq INTEGER NOT NULL, turn_id TEXT NOT NULL,
    body TEXT NOT NULL, PRIMARY KEY (tenant_id, conversation_id, id)
  ) WITHOUT ROWID, STRICT`,
  'in insertion order': `CREATE TABLE rm_messages (
    tenant_id TEXT NOT NULL, conversation_id TEXT NOT NULL, id TEXT NOT NULL, parent_id TEXT,
    role TEXT NOT NULL, depth INTEGER NOT NULL, seq INTEGER NOT NULL, turn_id TEXT NOT NULL,
    body TEXT NOT NULL
  ) STRICT`,
};

const columnsOf = (db: Database.Database) =>
  (db.prepare("SELECT name FROM pragma_table_info('rm_messages')").all() as { name: string }[]).map(
    (r) => r.name,
  );

const indexesOf = (db: Database.Database) =>
  (
    db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'rm_messages'")
      .all() as { name: string }[]
  ).map((r) => r.name);

const insert = (db: Database.Database, id: string) =>
  db
    .prepare(
      `INSERT INTO rm_messages (tenant_id, conversation_id, id, parent_id, role, depth, seq, turn_id, revision, bytes)
       VALUES ('t', 'c', ?, NULL, 'user', 0, 0, 'turn', 1, 2)`,
    )
    .run(id);

const withCheckpoints = (db: Database.Database) => {
  db.exec('CREATE TABLE projector_checkpoints (name TEXT PRIMARY KEY, position TEXT NOT NULL)');
  db.exec("INSERT INTO projector_checkpoints VALUES ('readmodels', '42')");
};

describe('rm_messages layout', () => {
  it('a new file keeps the tree and where each body is in the log, not the body', () => {
    const db = new Database(':memory:');
    migrateConversationTables(db);
    expect(messagesHoldBodies(db)).toBe(false);
    expect(columnsOf(db)).toEqual([
      'tenant_id',
      'conversation_id',
      'id',
      'parent_id',
      'role',
      'depth',
      'seq',
      'turn_id',
      'revision',
      'bytes',
    ]);
    expect(indexesOf(db)).toContain('rm_messages_by_id');
    insert(db, 'm1');
    // The id stays unique per conversation.
    expect(() => insert(db, 'm1')).toThrow(/UNIQUE/);
    db.close();
  });

  for (const [name, sql] of Object.entries(OLDER_LAYOUTS)) {
    it(`a file whose rm_messages holds bodies (${name}) is projected again from the start`, () => {
      const db = new Database(':memory:');
      withCheckpoints(db);
      db.exec(sql);
      db.exec(
        "INSERT INTO rm_messages VALUES ('t', 'c', 'm1', NULL, 'user', 0, 0, 'turn', '{\"secret\":1}')",
      );
      expect(messagesHoldBodies(db)).toBe(true);
      migrateConversationTables(db);
      expect(messagesHoldBodies(db)).toBe(false);
      expect(columnsOf(db)).toContain('revision');
      expect(db.prepare('SELECT count(*) AS n FROM rm_messages').get()).toEqual({ n: 0 });
      // No checkpoint left: the projector starts from position 0 and fills the new tables.
      expect(db.prepare('SELECT count(*) AS n FROM projector_checkpoints').get()).toEqual({ n: 0 });
      insert(db, 'm1');
      expect(() => insert(db, 'm1')).toThrow(/UNIQUE/);
      // Migrating again changes nothing.
      migrateConversationTables(db);
      expect(db.prepare('SELECT count(*) AS n FROM rm_messages').get()).toEqual({ n: 1 });
      db.close();
    });
  }
});
