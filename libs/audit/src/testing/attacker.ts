/**
 * What someone with write access to the SQLite file can do: drop the append-only triggers, then
 * edit, delete, move and insert rows with plain SQL. Tests only.
 */
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { decodeMetadata } from '@arbor/event-store/sqlite';

export interface Row {
  position: number;
  stream: string;
  revision: number;
  event_id: string;
  type: string;
  data: string;
  metadata: string;
  created: number;
}

interface StoredRow extends Row {
  format: number;
  chain_prev: Buffer | null;
  chain_hash: Buffer | null;
}

/** A row with its metadata as JSON text, whatever format it is stored in. */
const asRow = ({ format, chain_prev, chain_hash, ...row }: StoredRow): Row => ({
  ...row,
  metadata: JSON.stringify(decodeMetadata(format, row.metadata, chain_prev, chain_hash)),
});

/** Far above any position or revision in a test log: a parking place while rows are renumbered. */
const PARK = 1_000_000_000;

export const openAttacker = (file: string) => {
  const db = new Database(file);
  db.exec('DROP TRIGGER IF EXISTS events_no_update; DROP TRIGGER IF EXISTS events_no_delete;');
  const row = (position: number): Row => {
    const found = db.prepare('SELECT * FROM events WHERE position = ?').get(position) as
      StoredRow | undefined;
    if (found === undefined) throw new Error(`no event at position ${position}`);
    return asRow(found);
  };
  const at = (stream: string, revision: number): Row => {
    const found = db
      .prepare('SELECT * FROM events WHERE stream = ? AND revision = ?')
      .get(stream, revision) as StoredRow | undefined;
    if (found === undefined) throw new Error(`no event at ${stream}@${revision}`);
    return asRow(found);
  };
  /** Moves every row of `where` by `by`, via a parking offset so UNIQUE never trips midway. */
  const shift = (column: 'position' | 'revision', where: string, args: unknown[], by: number) => {
    db.transaction(() => {
      db.prepare(`UPDATE events SET ${column} = ${column} + ${PARK} WHERE ${where}`).run(...args);
      db.prepare(
        `UPDATE events SET ${column} = ${column} - ${PARK} + ${by} WHERE ${column} >= ${PARK}`,
      ).run();
    })();
  };
  return {
    db,
    row,
    at,
    setData: (position: number, data: string) =>
      db.prepare('UPDATE events SET data = ? WHERE position = ?').run(data, position),
    /** Rewrites the metadata as JSON text (row format 1, which every build reads). */
    setMetadata: (position: number, metadata: string) =>
      db
        .prepare(
          'UPDATE events SET metadata = ?, format = 1, chain_prev = NULL, chain_hash = NULL WHERE position = ?',
        )
        .run(metadata, position),
    delete: (position: number) => db.prepare('DELETE FROM events WHERE position = ?').run(position),
    /** Exchanges the positions of two rows: their order in $all flips, each keeps its revision. */
    swapPositions: (a: number, b: number) =>
      db.transaction(() => {
        db.prepare('UPDATE events SET position = ? WHERE position = ?').run(PARK, a);
        db.prepare('UPDATE events SET position = ? WHERE position = ?').run(a, b);
        db.prepare('UPDATE events SET position = ? WHERE position = ?').run(b, PARK);
      })(),
    /** Exchanges the revision numbers of two rows of one stream: each stays at its position. */
    swapRevisions: (stream: string, a: number, b: number) =>
      db.transaction(() => {
        const s = db.prepare('UPDATE events SET revision = ? WHERE stream = ? AND revision = ?');
        s.run(PARK, stream, a);
        s.run(a, stream, b);
        s.run(b, stream, PARK);
      })(),
    /**
     * Puts a new row right after `stream@afterRevision`, at the next position, renumbering the
     * stream's later revisions and every later position by one, so the log looks gap-free.
     */
    insertAfter: (
      stream: string,
      afterRevision: number,
      forged: { type: string; data: string; metadata: string; eventId?: string },
    ): number => {
      const after = at(stream, afterRevision);
      const position = after.position + 1;
      db.transaction(() => {
        shift('revision', 'stream = ? AND revision > ?', [stream, afterRevision], 1);
        shift('position', 'position > ?', [after.position], 1);
        db.prepare(
          'INSERT INTO events (position, stream, revision, event_id, type, data, metadata, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        ).run(
          position,
          stream,
          afterRevision + 1,
          forged.eventId ?? randomUUID(),
          forged.type,
          forged.data,
          forged.metadata,
          after.created,
        );
      })();
      return position;
    },
    /** Deletes a row and renumbers what followed (revisions of its stream, every later position). */
    deleteAndClose: (position: number) => {
      const gone = row(position);
      db.transaction(() => {
        db.prepare('DELETE FROM events WHERE position = ?').run(position);
        shift('revision', 'stream = ? AND revision > ?', [gone.stream, gone.revision], -1);
        shift('position', 'position > ?', [position], -1);
      })();
    },
    close: () => db.close(),
  };
};

export type Attacker = ReturnType<typeof openAttacker>;
