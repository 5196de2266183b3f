import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import {
  EventStoreError,
  StoreFullError,
  StoreUnavailableError,
  StreamNotFoundError,
} from '../errors';
import {
  type AllFilter,
  type Direction,
  type EventStore,
  type ExpectedRevision,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  type SubscribeToAllOptions,
} from '../types';
import { commitAppend, createLookup } from './append';
import { filterSql } from './filter-sql';
import { type AppendOutcome, createGroupCommitter, type QueuedAppend } from './group-commit';
import { createNotifier } from './notifier';
import { assertStreamName, prepareEvents } from './prepare-events';
import { sqliteCode } from './sqlite-errors';
import { applyPragmas, migrate, type SynchronousMode } from './schema';
import { EVENT_COLUMNS, prepareStatements, rowToEvent } from './statements';
import { createSqliteSubscription } from './subscription';
import { DEFAULT_CHECKPOINT_INTERVAL_MS, startWalCheckpoints } from './wal-checkpoints';

export interface SqliteEventStoreOptions {
  path: string;
  /** Default `FULL`: an acknowledged append survives power loss. */
  synchronous?: SynchronousMode;
  busyTimeoutMs?: number;
  pollIntervalMs?: number;
  subscriptionBatchSize?: number;
  /** Appends issued in one event-loop turn share one transaction and fsync. Default on. */
  groupCommit?: boolean;
  /** WAL checkpoint timer instead of in-commit autocheckpoint. Default 500 ms; 0: SQLite's. */
  checkpointIntervalMs?: number;
  /** A cross-process "the log grew" signal that wakes live subscriptions before their next poll. */
  wakeSignal?: { register(wake: () => void): void };
}

export interface SqliteEventStore extends EventStore {
  readonly kind: 'sqlite';
  readonly path: string;
  readonly synchronous: SynchronousMode;
  readonly groupCommit: boolean;
}

export const eventStoreDataPath = (dataDir: string): string => join(dataDir, 'events.sqlite');

/** Above any position or revision, for "from the end" reads (SQLite integers are signed 64-bit). */
const MAX_INT64 = 9223372036854775807n;

const clamp = (value: bigint): bigint => (value < 0n ? -1n : value > MAX_INT64 ? MAX_INT64 : value);

const startOf = (from: bigint | 'start' | 'end' | undefined, direction: Direction): bigint => {
  if (from === undefined) return direction === 'forwards' ? 0n : MAX_INT64;
  if (from === 'start') return 0n;
  if (from === 'end') return MAX_INT64;
  if (typeof from !== 'bigint')
    throw new EventStoreError('a revision or position must be a bigint');
  return clamp(from);
};

const limitOf = (maxCount: number | undefined): number => {
  if (maxCount === undefined || maxCount === Infinity) return -1;
  if (!Number.isInteger(maxCount) || maxCount < 0) {
    throw new EventStoreError('maxCount must be a non-negative integer');
  }
  return maxCount;
};

const directionOf = (direction: Direction | undefined): Direction => {
  if (direction === undefined || direction === 'forwards' || direction === 'backwards') {
    return direction ?? 'forwards';
  }
  throw new EventStoreError(`direction must be 'forwards' or 'backwards'`);
};

const expectedOf = (expected: ExpectedRevision | undefined): ExpectedRevision => {
  if (expected === undefined) return 'any';
  if (typeof expected === 'bigint') {
    if (expected < 0n) throw new EventStoreError('an expected revision must be >= 0');
    return expected;
  }
  if (expected === 'any' || expected === 'no_stream' || expected === 'stream_exists') {
    return expected;
  }
  throw new EventStoreError(`invalid expected revision ${String(expected)}`);
};

const guard = <T>(operation: () => T): T => {
  try {
    return operation();
  } catch (error) {
    if (error instanceof EventStoreError) throw error;
    const code = sqliteCode(error);
    if (code === 'SQLITE_FULL') {
      throw new StoreFullError(`sqlite ${code}: ${(error as Error).message}`);
    }
    if (code !== undefined) {
      throw new StoreUnavailableError(`sqlite ${code}: ${(error as Error).message}`);
    }
    throw error;
  }
};

const openDatabase = (path: string, synchronous: SynchronousMode, busyTimeoutMs: number) => {
  mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  try {
    db.defaultSafeIntegers(true);
    applyPragmas(db, { synchronous, busyTimeoutMs });
    migrate(db);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
};

export const openSqliteEventStore = (options: SqliteEventStoreOptions): SqliteEventStore => {
  const synchronous = options.synchronous ?? 'FULL';
  const pollIntervalMs = options.pollIntervalMs ?? 100;
  const batchSize = options.subscriptionBatchSize ?? 512;
  const db = guard(() => openDatabase(options.path, synchronous, options.busyTimeoutMs ?? 5000));
  const stopCheckpoints = startWalCheckpoints(
    db,
    options.checkpointIntervalMs ?? DEFAULT_CHECKPOINT_INTERVAL_MS,
  );
  const st = prepareStatements(db);
  const lookup = createLookup(st);
  const append = db.transaction(commitAppend);
  const notifier = createNotifier();
  const groupCommit = options.groupCommit ?? true;
  const appendBatch = db.transaction(
    (appends: readonly QueuedAppend[], created: number): AppendOutcome[] =>
      appends.map((a) => {
        try {
          return { ok: true, result: append(st, lookup, a.stream, a.events, a.expected, created) };
        } catch (error) {
          // A refused append (conflict) rolls back to its savepoint; anything else fails the batch.
          if (error instanceof EventStoreError) return { ok: false, error };
          throw error;
        }
      }),
  );
  const committer = createGroupCommitter(
    (appends) => guard(() => appendBatch.immediate(appends, Date.now())),
    () => notifier.notify(),
  );
  const subscriptions = new Set<{ stop(): void }>();
  let closed = false;
  options.wakeSignal?.register(() => {
    if (!closed) notifier.notify();
  });

  const open = () => {
    if (closed) throw new StoreUnavailableError(`the event store at ${options.path} is closed`);
  };

  const readWhere = (where: string, filter: AllFilter | undefined, tail: string) => {
    const f = filterSql(filter);
    const sql = `SELECT ${EVENT_COLUMNS} FROM events WHERE ${where}${f.where} ${tail}`;
    return { statement: st.cached(sql), params: f.params };
  };

  const window = (after: bigint, upTo: bigint, filter: AllFilter | undefined): RecordedEvent[] => {
    const { statement, params } = readWhere(
      'position > ? AND position <= ?',
      filter,
      'ORDER BY position',
    );
    return (statement.all(after, upTo, ...params) as unknown[][]).map(rowToEvent);
  };

  const headPosition = (): bigint | null => (st.head.get() as bigint | null | undefined) ?? null;

  return {
    kind: 'sqlite',
    path: options.path,
    synchronous,
    groupCommit,

    appendToStream: async (streamName, events, appendOptions) => {
      open();
      assertStreamName(streamName);
      const expected = expectedOf(appendOptions?.expectedRevision);
      const prepared = prepareEvents(events);
      if (groupCommit) return committer.enqueue({ stream: streamName, events: prepared, expected });
      const result = guard(() =>
        append.immediate(st, lookup, streamName, prepared, expected, Date.now()),
      );
      notifier.notify();
      return result;
    },

    readStream: async (streamName, readOptions: ReadStreamOptions = {}) => {
      open();
      assertStreamName(streamName);
      const direction = directionOf(readOptions.direction);
      const from = startOf(readOptions.fromRevision, direction);
      const limit = limitOf(readOptions.maxCount);
      return guard(() => {
        const statement = direction === 'forwards' ? st.readStreamForwards : st.readStreamBackwards;
        const rows = statement.all(streamName, from, limit) as unknown[][];
        if (rows.length === 0 && st.streamExists.get(streamName) === undefined) {
          throw new StreamNotFoundError(streamName);
        }
        return rows.map(rowToEvent);
      });
    },

    readStreamData: async (streamName, { fromRevision, maxCount }) => {
      open();
      assertStreamName(streamName);
      return guard(() =>
        (st.readStreamData.all(streamName, fromRevision, limitOf(maxCount)) as unknown[][]).map(
          (row) => ({
            revision: row[0] as bigint,
            type: row[1] as string,
            data: JSON.parse(row[2] as string) as unknown,
          }),
        ),
      );
    },

    readAll: async (readOptions: ReadAllOptions = {}) => {
      open();
      const direction = directionOf(readOptions.direction);
      const from = startOf(readOptions.fromPosition, direction);
      const limit = limitOf(readOptions.maxCount);
      return guard(() => {
        const { statement, params } =
          direction === 'forwards'
            ? readWhere('position >= ?', readOptions.filter, 'ORDER BY position LIMIT ?')
            : readWhere('position <= ?', readOptions.filter, 'ORDER BY position DESC LIMIT ?');
        const rows = statement.all(from, ...params, limit) as unknown[][];
        return rows.map(rowToEvent);
      });
    },

    subscribeToAll: (subscribeOptions: SubscribeToAllOptions = {}) => {
      open();
      const from = subscribeOptions.fromPosition ?? 'start';
      const after = guard(() =>
        from === 'start' ? 0n : from === 'end' ? (headPosition() ?? 0n) : clamp(from),
      );
      const subscription = createSqliteSubscription(
        {
          head: headPosition,
          window,
          waitForAppend: (timeoutMs) => notifier.wait(timeoutMs),
        },
        {
          after,
          filter: subscribeOptions.filter,
          checkpointInterval: subscribeOptions.checkpointInterval ?? 32,
          batchSize,
          pollIntervalMs,
        },
        () => subscriptions.delete(subscription),
      );
      subscriptions.add(subscription);
      return {
        [Symbol.asyncIterator]: subscription[Symbol.asyncIterator],
        unsubscribe: subscription.unsubscribe,
      };
    },

    headPosition: async () => {
      open();
      return guard(headPosition);
    },

    close: async () => {
      if (closed) return;
      closed = true;
      committer.flush();
      for (const subscription of [...subscriptions]) subscription.stop();
      subscriptions.clear();
      stopCheckpoints();
      db.close();
    },
  };
};
