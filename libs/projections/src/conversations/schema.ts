import type Database from 'better-sqlite3';

/**
 * The conversation read models. Every key starts with the tenant: no query can reach another
 * tenant's rows without naming that tenant. Rows are derived only from events (times come from
 * event metadata), so a rebuild writes identical rows.
 */
export const CONVERSATION_TABLES = [
  { name: 'rm_conversations', orderBy: 'tenant_id, id' },
  { name: 'rm_forks', orderBy: 'tenant_id, source_id, fork_id' },
  { name: 'rm_messages', orderBy: 'tenant_id, conversation_id, id' },
  { name: 'rm_active_branch', orderBy: 'tenant_id, conversation_id, depth' },
  { name: 'rm_checkpoints', orderBy: 'tenant_id, conversation_id, label' },
  { name: 'rm_failures', orderBy: 'tenant_id, conversation_id, failure_id' },
  { name: 'rm_digests', orderBy: 'tenant_id, conversation_id, revision' },
  { name: 'rm_erased', orderBy: 'tenant_id, id' },
] as const;

export const migrateConversationTables = (db: Database.Database): void => {
  db.exec(`
    CREATE TABLE IF NOT EXISTS rm_conversations (
      tenant_id TEXT NOT NULL,
      id TEXT NOT NULL,
      seq INTEGER NOT NULL,
      title TEXT,
      metadata TEXT,
      tip TEXT,
      revision INTEGER NOT NULL,
      position INTEGER NOT NULL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      forked_from_conversation TEXT,
      forked_from_message TEXT,
      message_count INTEGER NOT NULL DEFAULT 0,
      turn_count INTEGER NOT NULL DEFAULT 0,
      cut_at TEXT,
      PRIMARY KEY (tenant_id, id)
    ) WITHOUT ROWID, STRICT;
    CREATE INDEX IF NOT EXISTS rm_conversations_by_seq ON rm_conversations (tenant_id, seq);
    -- The list's other orders (GET /v1/conversations?sort=…): keyset pages walk these indexes.
    CREATE INDEX IF NOT EXISTS rm_conversations_by_activity ON rm_conversations (tenant_id, updated_at, seq);
    CREATE INDEX IF NOT EXISTS rm_conversations_by_title ON rm_conversations (tenant_id, IFNULL(title, ''), seq);

    CREATE TABLE IF NOT EXISTS rm_forks (
      tenant_id TEXT NOT NULL,
      source_id TEXT NOT NULL,
      fork_id TEXT NOT NULL,
      from_message_id TEXT NOT NULL,
      position INTEGER NOT NULL,
      PRIMARY KEY (tenant_id, source_id, fork_id)
    ) WITHOUT ROWID, STRICT;

    -- In insertion order (a rowid table): each message appends to the last leaf instead of
    -- landing on a random page by its id (fewer pages written per commit, fuller pages; see
    -- bench/README.md), with the id lookup in rm_messages_by_id. Files made before this layout
    -- keep theirs (keyed by id, WITHOUT ROWID; same answers) until a rebuild drops the table.
    CREATE TABLE IF NOT EXISTS rm_messages (
      tenant_id TEXT NOT NULL,
      conversation_id TEXT NOT NULL,
      id TEXT NOT NULL,
      parent_id TEXT,
      role TEXT NOT NULL,
      depth INTEGER NOT NULL,
      seq INTEGER NOT NULL,
      turn_id TEXT NOT NULL,
      body TEXT NOT NULL
    ) STRICT;
    CREATE INDEX IF NOT EXISTS rm_messages_children ON rm_messages (tenant_id, conversation_id, parent_id);
    CREATE INDEX IF NOT EXISTS rm_messages_by_seq ON rm_messages (tenant_id, conversation_id, seq);

    CREATE TABLE IF NOT EXISTS rm_active_branch (
      tenant_id TEXT NOT NULL,
      conversation_id TEXT NOT NULL,
      depth INTEGER NOT NULL,
      message_id TEXT NOT NULL,
      PRIMARY KEY (tenant_id, conversation_id, depth)
    ) WITHOUT ROWID, STRICT;

    CREATE TABLE IF NOT EXISTS rm_checkpoints (
      tenant_id TEXT NOT NULL,
      conversation_id TEXT NOT NULL,
      label TEXT NOT NULL,
      message_id TEXT NOT NULL,
      status TEXT NOT NULL,
      reason TEXT,
      digest TEXT,
      revision INTEGER NOT NULL,
      PRIMARY KEY (tenant_id, conversation_id, label)
    ) WITHOUT ROWID, STRICT;

    CREATE TABLE IF NOT EXISTS rm_failures (
      tenant_id TEXT NOT NULL,
      conversation_id TEXT NOT NULL,
      failure_id TEXT NOT NULL,
      input TEXT NOT NULL,
      error TEXT NOT NULL,
      revision INTEGER NOT NULL,
      pending INTEGER NOT NULL,
      PRIMARY KEY (tenant_id, conversation_id, failure_id)
    ) WITHOUT ROWID, STRICT;

    CREATE TABLE IF NOT EXISTS rm_digests (
      tenant_id TEXT NOT NULL,
      conversation_id TEXT NOT NULL,
      revision INTEGER NOT NULL,
      message_id TEXT NOT NULL,
      label TEXT NOT NULL,
      digest TEXT NOT NULL,
      PRIMARY KEY (tenant_id, conversation_id, revision)
    ) WITHOUT ROWID, STRICT;
    -- Erased conversations: no content, only that, when and why (ConversationErased).
    CREATE TABLE IF NOT EXISTS rm_erased (
      tenant_id TEXT NOT NULL,
      id TEXT NOT NULL,
      revision INTEGER NOT NULL,
      erased_at TEXT NOT NULL,
      reason TEXT NOT NULL,
      PRIMARY KEY (tenant_id, id)
    ) WITHOUT ROWID, STRICT;
    CREATE INDEX IF NOT EXISTS rm_digests_by_message ON rm_digests (tenant_id, conversation_id, message_id);
  `);
  if (messagesHaveRowid(db)) {
    db.exec(
      'CREATE UNIQUE INDEX IF NOT EXISTS rm_messages_by_id ON rm_messages (tenant_id, conversation_id, id)',
    );
  }
};

/** Whether rm_messages has the insertion-ordered layout (false: the older one keyed by id). */
export const messagesHaveRowid = (db: Database.Database): boolean => {
  const row = db
    .prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'rm_messages'")
    .get() as { sql: string } | undefined;
  return row !== undefined && !/WITHOUT\s+ROWID/i.test(row.sql);
};

export const dropConversationTables = (db: Database.Database): void => {
  for (const t of CONVERSATION_TABLES) db.exec(`DROP TABLE IF EXISTS ${t.name}`);
};
