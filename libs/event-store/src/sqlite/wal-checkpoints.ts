import type Database from 'better-sqlite3';

export const DEFAULT_CHECKPOINT_INTERVAL_MS = 500;

/** PASSIVE checkpoints on a timer so no commit pays for copying the WAL; `intervalMs <= 0`: SQLite's. */
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
