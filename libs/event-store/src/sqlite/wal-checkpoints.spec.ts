import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startWalCheckpoints } from './wal-checkpoints';

const walPages = (db: Database.Database) =>
  (db.pragma('wal_checkpoint(NOOP)') as { log: number }[])[0]?.log ?? -1;

describe('WAL checkpoints on a timer', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-wal-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const open = () => {
    const db = new Database(path.join(dir, 'x.sqlite'));
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE t (v TEXT)');
    return db;
  };

  it('turns SQLite autocheckpoint off and copies the WAL back between commits', async () => {
    const db = open();
    const stop = startWalCheckpoints(db, 20);
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    const insert = db.prepare('INSERT INTO t VALUES (?)');
    // Well past the 1,000 pages at which SQLite would have checkpointed inside a commit.
    for (let i = 0; i < 1500; i++) insert.run('x'.repeat(4000));
    const beforeTimer = db.pragma('wal_checkpoint(NOOP)') as {
      log: number;
      checkpointed: number;
    }[];
    expect(beforeTimer[0].log).toBeGreaterThan(1000);
    await new Promise((r) => setTimeout(r, 100));
    const after = db.pragma('wal_checkpoint(NOOP)') as { log: number; checkpointed: number }[];
    expect(after[0].checkpointed).toBe(after[0].log);
    stop();
    db.close();
  });

  it('keeps SQLite autocheckpoint when the interval is 0, and stops itself on close', async () => {
    const db = open();
    startWalCheckpoints(db, 0);
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    const other = new Database(path.join(dir, 'y.sqlite'));
    other.pragma('journal_mode = WAL');
    startWalCheckpoints(other, 5);
    other.close();
    await new Promise((r) => setTimeout(r, 30)); // the timer must not throw on a closed db
    expect(walPages(db)).toBeGreaterThanOrEqual(0);
    db.close();
  });
});
