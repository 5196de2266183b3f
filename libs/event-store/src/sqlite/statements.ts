import type Database from 'better-sqlite3';
import { type RecordedEvent } from '../types';
import { decodeMetadata } from './row-format';

/** Rows are fetched raw (arrays) to skip building objects twice. */
export const EVENT_COLUMNS =
  'position, stream, revision, event_id, type, data, metadata, created, format, chain_prev, chain_hash';

export const rowToEvent = (row: unknown[]): RecordedEvent => ({
  id: row[3] as string,
  streamName: row[1] as string,
  revision: row[2] as bigint,
  position: row[0] as bigint,
  type: row[4] as string,
  data: JSON.parse(row[5] as string) as unknown,
  metadata: decodeMetadata(
    row[8] as bigint,
    row[6] as string,
    row[9] as Buffer | null,
    row[10] as Buffer | null,
  ),
  created: new Date(Number(row[7] as bigint)),
});

/** Prepared once; safe integers on, so positions above 2^53 are never rounded. */
export const prepareStatements = (db: Database.Database) => {
  const bySql = new Map<string, Database.Statement>();
  const cached = (sql: string): Database.Statement => {
    let statement = bySql.get(sql);
    if (statement === undefined) {
      statement = db.prepare(sql).raw();
      bySql.set(sql, statement);
    }
    return statement;
  };
  return {
    head: db.prepare('SELECT max(position) FROM events').pluck(),
    streamRevision: db
      .prepare('SELECT revision FROM events WHERE stream = ? ORDER BY revision DESC LIMIT 1')
      .pluck(),
    streamExists: db.prepare('SELECT 1 FROM events WHERE stream = ? LIMIT 1').pluck(),
    insert: db.prepare(
      'INSERT INTO events (stream, revision, event_id, type, data, metadata, created, format, chain_prev, chain_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    ),
    byId: db.prepare('SELECT stream, revision, position FROM events WHERE event_id = ?').raw(),
    atRevision: db
      .prepare('SELECT event_id, position FROM events WHERE stream = ? AND revision = ?')
      .raw(),
    readStreamForwards: db
      .prepare(
        `SELECT ${EVENT_COLUMNS} FROM events WHERE stream = ? AND revision >= ? ORDER BY revision LIMIT ?`,
      )
      .raw(),
    readStreamData: db
      .prepare(
        'SELECT revision, type, data FROM events WHERE stream = ? AND revision >= ? ORDER BY revision LIMIT ?',
      )
      .raw(),
    readStreamBackwards: db
      .prepare(
        `SELECT ${EVENT_COLUMNS} FROM events WHERE stream = ? AND revision <= ? ORDER BY revision DESC LIMIT ?`,
      )
      .raw(),
    cached,
  };
};

export type Statements = ReturnType<typeof prepareStatements>;
