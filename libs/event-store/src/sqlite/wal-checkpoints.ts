import type Database from 'better-sqlite3';

/** How often the WAL is checkpointed when SQLite's own autocheckpoint is off. */
export const DEFAULT_CHECKPOINT_INTERVAL_MS = 500;

/**
 * WAL checkpoints outside commits. SQLite's default runs a checkpoint inside whichever commit
 * crosses 1,000 WAL pages (that commit copies the pages into the database file and waits for
 * its fsyncs); with `wal_autocheckpoint = 0` commits only append to the WAL and a timer runs a
 * PASSIVE checkpoint every `intervalMs` between requests instead, so pages written many times
 * in that interval are copied once. PASSIVE never waits for readers or writers; what it cannot
 * copy now it copies on the next tick. `intervalMs <= 0` keeps SQLite's autocheckpoint.
 * Returns a stop function; the timer also stops itself once the database is closed.
 */
export const startWalCheckpoints = (db: Database.Database, intervalMs: number): (() => void) => {
  if (intervalMs <= 0 || db.memory) return () => undefined;
  db.pragma('wal_autocheckpoint = 0');
  const timer = setInterval(() => {
    if (!db.open) {
      clearInterval(timer);
      return;
    }
    try {
      db.pragma('wal_checkpoint(PASSIVE)');
    } catch {
      // busy or closing: the next tick tries again
    }
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
};
