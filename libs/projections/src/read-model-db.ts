import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_CHECKPOINT_INTERVAL_MS, startWalCheckpoints } from '@arbor/event-store/sqlite';

/** A read-model database handle, so callers hold one without importing the driver. */
export type ReadModelDb = Database.Database;

/** synchronous=NORMAL: derived data, checkpoint in the rows' transaction, so a crash resumes. */
export const openReadModelDb = (
  file: string,
  cacheSizeKiB = 16 * 1024,
  checkpointIntervalMs = DEFAULT_CHECKPOINT_INTERVAL_MS,
): Database.Database => {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
  let db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
  } catch (e) {
    // A full disk has no room for the -shm file: in exclusive mode WAL keeps its index in memory,
    // so the server still comes up, reads answer and the projector retries until there is space.
    const code = (e as { code?: string }).code ?? '';
    if (!/^SQLITE_(IOERR|FULL)/.test(code)) throw e;
    db.close();
    db = new Database(file);
    db.pragma('locking_mode = EXCLUSIVE');
    db.pragma('journal_mode = WAL');
  }
  db.pragma('synchronous = NORMAL');
  db.pragma(`cache_size = -${cacheSizeKiB}`);
  db.pragma('temp_store = MEMORY');
  db.pragma('busy_timeout = 5000');
  // Checkpoints on a timer, not inside the projector's commits (stops itself on close).
  startWalCheckpoints(db, checkpointIntervalMs);
  // Erasure deletes rows: their bytes are overwritten in the file (and its freelist), not left.
  db.pragma('secure_delete = ON');
  db.exec(`CREATE TABLE IF NOT EXISTS projector_checkpoints (
    name TEXT PRIMARY KEY,
    position TEXT NOT NULL
  ) STRICT`);
  return db;
};

const POINTER = 'readmodels.current';
const DEFAULT_FILE = 'readmodels.sqlite';

/** The file `readmodels.current` points at: a rebuild switches it, never half-built tables. */
export const readModelDataPath = (dataDir: string): string => {
  try {
    const name = fs.readFileSync(path.join(dataDir, POINTER), 'utf8').trim();
    if (/^readmodels[A-Za-z0-9_.-]*\.sqlite$/.test(name)) return path.join(dataDir, name);
  } catch {
    // no pointer yet: the default file
  }
  return path.join(dataDir, DEFAULT_FILE);
};

export const nextReadModelPath = (dataDir: string): string =>
  path.join(dataDir, `readmodels-${Date.now().toString(36)}.sqlite`);

/** Points readers at `file` (atomic rename of the pointer), then removes the old file. */
export const switchReadModel = (dataDir: string, file: string, previous: string): void => {
  const tmp = path.join(dataDir, `${POINTER}.tmp`);
  fs.writeFileSync(tmp, path.basename(file));
  fs.renameSync(tmp, path.join(dataDir, POINTER));
  if (path.resolve(previous) !== path.resolve(file)) {
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(previous + suffix, { force: true });
  }
};
