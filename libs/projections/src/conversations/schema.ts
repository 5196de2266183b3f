import type Database from 'better-sqlite3';

/** Every key starts with the tenant; rows come only from events, so a rebuild writes identical rows. */
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

const createConversationTables = (db: Database.Database): void => {
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

    -- The tree's shape only: a body stays in the log, at \`revision\` of the conversation's stream
    -- (the MessageAppended event). In insertion order (a rowid table): each message appends to
    -- the last leaf instead of landing on a random page by its id, with the id lookup in
    -- rm_messages_by_id. \`bytes\`: the body's JSON length, what the branch cache budgets.
    CREATE TABLE IF NOT EXISTS rm_messages (
      tenant_id TEXT NOT NULL,
      conversation_id TEXT NOT NULL,
      id TEXT NOT NULL,
      parent_id TEXT,
      role TEXT NOT NULL,
      depth INTEGER NOT NULL,
      seq INTEGER NOT NULL,
      turn_id TEXT NOT NULL,
      revision INTEGER NOT NULL,
      bytes INTEGER NOT NULL
    ) STRICT;
    CREATE UNIQUE INDEX IF NOT EXISTS rm_messages_by_id ON rm_messages (tenant_id, conversation_id, id);
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
};

/** Older layouts copied bodies into rm_messages; such a file is projected again from the start. */
export const messagesHoldBodies = (db: Database.Database): boolean =>
  db.prepare("SELECT 1 FROM pragma_table_info('rm_messages') WHERE name = 'body'").get() !==
  undefined;

export const migrateConversationTables = (db: Database.Database): void => {
  if (messagesHoldBodies(db)) {
    db.transaction(() => {
      dropConversationTables(db);
      // Every checkpoint of this file: its projector replays the log into the new tables.
      const checkpoints = db
        .prepare(
          "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'projector_checkpoints'",
        )
        .get();
      if (checkpoints !== undefined) db.exec('DELETE FROM projector_checkpoints');
    })();
  }
  createConversationTables(db);
};

export const dropConversationTables = (db: Database.Database): void => {
  for (const t of CONVERSATION_TABLES) db.exec(`DROP TABLE IF EXISTS ${t.name}`);
};
