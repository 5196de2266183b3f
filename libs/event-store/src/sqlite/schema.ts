import type Database from 'better-sqlite3';
import { StoreUnavailableError } from '../errors';

export type SynchronousMode = 'OFF' | 'NORMAL' | 'FULL' | 'EXTRA';

export const SYNCHRONOUS_MODES: readonly SynchronousMode[] = ['OFF', 'NORMAL', 'FULL', 'EXTRA'];

/** A file from a newer schema version is refused, not guessed at. */
export const SCHEMA_VERSION = 2;

export const SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS events (
  position INTEGER PRIMARY KEY,
  stream   TEXT    NOT NULL,
  revision INTEGER NOT NULL CHECK (revision >= 0),
  event_id TEXT    NOT NULL,
  type     TEXT    NOT NULL,
  data     TEXT    NOT NULL,
  metadata TEXT    NOT NULL,
  created  INTEGER NOT NULL,
  format   INTEGER NOT NULL DEFAULT 1,
  chain_prev BLOB,
  chain_hash BLOB,
  CONSTRAINT events_stream_revision UNIQUE (stream, revision),
  CONSTRAINT events_event_id UNIQUE (event_id)
);
CREATE TRIGGER IF NOT EXISTS events_no_update BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END;
CREATE TRIGGER IF NOT EXISTS events_no_delete BEFORE DELETE ON events
BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END;
`;

export interface PragmaOptions {
  synchronous: SynchronousMode;
  busyTimeoutMs: number;
}

export const applyPragmas = (
  db: Database.Database,
  { synchronous, busyTimeoutMs }: PragmaOptions,
) => {
  if (!SYNCHRONOUS_MODES.includes(synchronous)) {
    throw new StoreUnavailableError(`synchronous must be one of ${SYNCHRONOUS_MODES.join(', ')}`);
  }
  if (!Number.isInteger(busyTimeoutMs) || busyTimeoutMs < 0) {
    throw new StoreUnavailableError('busyTimeoutMs must be a non-negative integer');
  }
  db.pragma(`busy_timeout = ${busyTimeoutMs}`);
  const mode = db.pragma('journal_mode = WAL', { simple: true });
  if (String(mode).toLowerCase() !== 'wal') {
    throw new StoreUnavailableError(`could not switch ${db.name} to WAL (journal_mode=${mode})`);
  }
  db.pragma(`synchronous = ${synchronous}`);
};

export const migrate = (db: Database.Database): void => {
  db.transaction(() => {
    const version = Number(db.pragma('user_version', { simple: true }));
    if (version > SCHEMA_VERSION) {
      throw new StoreUnavailableError(
        `${db.name} has schema version ${version}; this build knows up to ${SCHEMA_VERSION}`,
      );
    }
    db.exec(SCHEMA_SQL);
    const columns = new Set(
      (db.pragma('table_info(events)') as { name: string }[]).map((c) => c.name),
    );
    if (!columns.has('format')) {
      db.exec(`ALTER TABLE events ADD COLUMN format INTEGER NOT NULL DEFAULT 1;
        ALTER TABLE events ADD COLUMN chain_prev BLOB;
        ALTER TABLE events ADD COLUMN chain_hash BLOB;`);
    }
    if (version < SCHEMA_VERSION) db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).immediate();
};
