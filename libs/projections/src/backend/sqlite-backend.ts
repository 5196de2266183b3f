import { createConversationQueries, DEFAULT_BRANCH_WINDOW_CACHE } from '../conversations';
import { createProjector, type Projector, sqliteSink } from '../projector';
import {
  nextReadModelPath,
  openReadModelDb,
  readModelDataPath,
  type ReadModelDb,
  switchReadModel,
} from '../read-model-db';
import { asyncQueries, type ReadModelQueries, type ReadModelSink } from '../read-model-port';
import { lastRevisions } from '../redis/pool';
import { type ReadModelBackend, type ReadModelBackendOptions, type ReadWait } from './port';
import { PROJECTION_SET, PROJECTIONS } from './projections';

interface Opened {
  db: ReadModelDb;
  sink: ReadModelSink;
  projector: Projector;
  queries: ReadModelQueries;
  file: string;
  /** The log's head at open: reads wait for it, so a projector stuck at startup answers 503. */
  floor: bigint | null;
}

const LAGGING: ReadWait = { ok: false, reason: 'lagging', message: 'Retry shortly.' };
const DAY_MS = 24 * 60 * 60 * 1000;

export const openSqliteBackend = async (
  options: ReadModelBackendOptions,
): Promise<ReadModelBackend> => {
  const { store, log } = options;

  // Startup never waits on a projector that cannot move (SQLITE_FULL): it retries by itself.
  const open = async (file: string, catchUp: boolean): Promise<Opened> => {
    const db = openReadModelDb(file, undefined, options.checkpointIntervalMs);
    const sink = sqliteSink(db, 'readmodels', PROJECTIONS);
    const queries = asyncQueries(
      createConversationQueries(db, {
        ...DEFAULT_BRANCH_WINDOW_CACHE,
        maxBytes: options.branchCacheMiB * 1024 * 1024,
      }),
    );
    const projector = createProjector({
      store,
      sink,
      set: PROJECTION_SET,
      onError: (e) => log.error(`projector stopped (retrying): ${String(e)}`),
      restartDelayMs: 1000,
      onApplied: (events) => options.onApplied?.(lastRevisions(events)),
    });
    if (!catchUp) return { db, sink, projector, queries, file, floor: null };
    await projector.start();
    const floor = await store.headPosition();
    if (floor !== null && !(await projector.waitFor(floor, DAY_MS))) {
      log.warn(`read models behind the log at startup (${projector.status().lastError})`);
    }
    return { db, sink, projector, queries, file, floor };
  };

  let live = await open(readModelDataPath(options.dataDir), options.catchUp ?? true);

  const reached = async (position: bigint | null, timeoutMs: number): Promise<ReadWait> =>
    position === null || (await live.projector.waitFor(position, timeoutMs))
      ? { ok: true, queries: live.queries }
      : LAGGING;

  return {
    kind: 'sqlite',
    queries: () => live.queries,
    waitFor: (position, keyId, timeoutMs) => {
      const floor = live.floor;
      const target =
        keyId !== null && floor !== null && (position === null || floor > position)
          ? floor
          : position;
      return reached(target, timeoutMs);
    },
    noteWrite: () => Promise.resolve(),
    publishErasure: () => Promise.resolve(),
    dropErasedRows: () => Promise.resolve(0),
    // secure_delete overwrote the rows in the file; the WAL still holds their old pages.
    compactAfterErasure: () => void live.db.pragma('wal_checkpoint(TRUNCATE)'),
    status: () => live.projector.status(),
    progress: async () => {
      const head = await store.headPosition();
      const p = live.projector.status().position;
      return {
        head,
        partitions: [
          {
            partition: 0,
            position: p,
            lagPositions: head === null ? 0n : p === null ? head : head - p,
            ownedHere: true,
            token: null,
          },
        ],
        leaseChanges: null,
      };
    },
    leases: () => Promise.resolve(new Map([['0', 0]])),
    rebuild: async (onProgress) => {
      const file = nextReadModelPath(options.dataDir);
      const fresh = await open(file, onProgress === undefined);
      if (onProgress !== undefined) {
        await fresh.projector.rebuild(onProgress);
        fresh.floor = await store.headPosition();
      }
      const old = live;
      live = fresh;
      await old.projector.stop();
      old.db.close();
      switchReadModel(options.dataDir, file, old.file);
      const p = live.projector.status().position;
      return { position: p === null ? null : p.toString() };
    },
    dump: () => Promise.resolve(live.sink.dump()),
    close: async () => {
      await live.projector.stop();
      live.db.close();
    },
  };
};
