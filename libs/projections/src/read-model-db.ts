import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';

/**
 * The read-model database: SQLite tables beside the log, so history grows on disk, not in RAM.
 * Durability is relaxed (synchronous=NORMAL): read models are derived, and the projector stores
 * its checkpoint in the same transaction as the rows, so after a crash it resumes consistently.
 */
export const openReadModelDb = (file: string, cacheSizeKiB = 16 * 1024): Database.Database => {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma(`cache_size = -${cacheSizeKiB}`);
  db.pragma('temp_store = MEMORY');
  db.pragma('busy_timeout = 5000');
  db.exec(`CREATE TABLE IF NOT EXISTS projector_checkpoints (
    name TEXT PRIMARY KEY,
    position TEXT NOT NULL
  ) STRICT`);
  return db;
};

export const readModelDataPath = (dataDir: string): string =>
  path.join(dataDir, 'readmodels.sqlite');
