import type Database from 'better-sqlite3';
import {
  type EventStore,
  type RecordedEvent,
  type Subscription,
  type SubscriptionMessage,
} from '@arbor/event-store';
import { bindMessageSource, logMessages } from './conversations/content';
import { type Projection, type ProjectionSet } from './projection';
import { type ReadModelSink } from './read-model-port';

export interface ProjectorStatus {
  /** Last global position applied (or scanned, for filtered-out events), null before the first. */
  position: bigint | null;
  caughtUp: boolean;
  running: boolean;
  lastError: string | null;
}

export interface Projector {
  start(): Promise<void>;
  stop(): Promise<void>;
  status(): ProjectorStatus;
  /** Resolves true once everything up to `position` is applied, false on timeout. */
  waitFor(position: bigint, timeoutMs: number): Promise<boolean>;
  /** Stops, drops every read model, replays from position 0, and starts again live. */
  rebuild(onProgress?: (position: bigint) => void): Promise<void>;
}

export interface ProjectorOptions {
  name?: string;
  store: EventStore;
  db?: Database.Database;
  /** Or any other read-model sink (e.g. Redis); exactly one of `db` and `sink`. */
  sink?: ReadModelSink;
  set: ProjectionSet;
  /** Events not accepted (another partition's) only move the checkpoint. */
  accept?: (event: RecordedEvent) => boolean;
  batchSize?: number;
  /** Ms received events wait to be batched (default 5); a `waitFor` applies them at once. */
  flushDelayMs?: number;
  onError?: (error: unknown) => void;
  /** Restart after a failure (SQLITE_FULL) in this many ms, doubling to 30 s; 0: stay down. */
  restartDelayMs?: number;
  /** After a batch and its checkpoint are stored (what the live streams are told). */
  onApplied?: (events: readonly RecordedEvent[], upTo: bigint) => void;
}

const MAX_RESTART_DELAY_MS = 30_000;

interface Waiter {
  position: bigint;
  resolve: (ok: boolean) => void;
  timer: NodeJS.Timeout;
}

const readCheckpoint = (db: Database.Database, name: string): bigint | null => {
  const row = db.prepare('SELECT position FROM projector_checkpoints WHERE name = ?').get(name) as
    { position: string } | undefined;
  return row ? BigInt(row.position) : null;
};

export const migrateAll = (db: Database.Database, projections: readonly Projection[]): void => {
  for (const p of projections) p.migrate(db);
};

export const createBatchApplier = (
  db: Database.Database,
  name: string,
  projections: readonly Projection[],
) => {
  const handlers = projections.map((p) => p.prepare(db));
  const save = db.prepare(
    'INSERT INTO projector_checkpoints (name, position) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET position = excluded.position',
  );
  return db.transaction((events: readonly RecordedEvent[], position: bigint) => {
    for (const event of events) for (const h of handlers) h(event);
    save.run(name, position.toString());
  });
};

/** The SQLite read models as a projector sink: rows and checkpoint in one transaction. */
export const sqliteSink = (
  db: Database.Database,
  name: string,
  projections: readonly Projection[],
): ReadModelSink => {
  migrateAll(db, projections);
  let apply = createBatchApplier(db, name, projections);
  return {
    readCheckpoint: () => readCheckpoint(db, name),
    apply: (events, position) => apply(events, position),
    reset: () => {
      db.transaction(() => {
        for (const p of projections) p.drop(db);
        db.prepare('DELETE FROM projector_checkpoints WHERE name = ?').run(name);
      })();
      migrateAll(db, projections);
      apply = createBatchApplier(db, name, projections);
    },
    dump: () => dumpReadModels(db, projections),
    bindLog: (store) => bindMessageSource(db, logMessages(store)),
  };
};

const isPromise = <T>(v: T | Promise<T>): v is Promise<T> =>
  typeof v === 'object' && v !== null && typeof (v as Promise<T>).then === 'function';

/** Fed by the `$all` subscription only, never by the command path. */
export const createProjector = (options: ProjectorOptions): Projector => {
  const { store, set, accept } = options;
  const name = options.name ?? 'readmodels';
  const batchSize = options.batchSize ?? 512;
  const flushDelayMs = options.flushDelayMs ?? 5;
  const sink =
    options.sink ??
    (options.db
      ? sqliteSink(options.db, name, set.projections)
      : (() => {
          throw new Error('projector: a db or a sink is required');
        })());
  sink.bindLog?.(store);

  const initial = sink.readCheckpoint();
  let position: bigint | null = isPromise(initial) ? null : initial;
  let checkpointRead: Promise<bigint | null> | null = isPromise(initial) ? initial : null;
  let applying: Promise<void> | null = null;
  /** Which run a queued batch belongs to: one queued by a failed run is never applied. */
  let runId = 0;
  let caughtUp = false;
  let running = false;
  let lastError: string | null = null;
  let subscription: Subscription | null = null;
  let loop: Promise<void> | null = null;
  let waiters: Waiter[] = [];
  /** Stopped by `stop()` (not by a failure): no automatic restart. */
  let stopped = true;
  const restartDelayMs = options.restartDelayMs ?? 0;
  let nextRestartDelay = restartDelayMs;
  let restartTimer: NodeJS.Timeout | null = null;

  const wake = (): void => {
    if (position === null || waiters.length === 0) return;
    const reached = position;
    waiters = waiters.filter((w) => {
      if (w.position > reached) return true;
      clearTimeout(w.timer);
      w.resolve(true);
      return false;
    });
  };

  const applied = (upTo: bigint, events: readonly RecordedEvent[]): void => {
    position = upTo;
    nextRestartDelay = restartDelayMs;
    wake();
    if (options.onApplied !== undefined && events.length > 0) {
      try {
        options.onApplied(events, upTo);
      } catch {
        // A listener's failure is its own: the projection has moved on regardless.
      }
    }
  };

  const flush = (batch: RecordedEvent[], upTo: bigint): void => {
    if (applying === null) {
      const result = sink.apply(batch, upTo);
      if (!isPromise(result)) {
        applied(upTo, batch);
        return;
      }
      track(result.then(() => applied(upTo, batch)));
      return;
    }
    const run = runId;
    track(
      applying.then(async () => {
        if (run !== runId || !running) return;
        await sink.apply(batch, upTo);
        applied(upTo, batch);
      }),
    );
  };

  const track = (p: Promise<void>): void => {
    const run = runId;
    const link: Promise<void> = p.then(
      () => {
        if (applying === link) applying = null;
      },
      (error: unknown) => {
        if (applying === link) applying = null;
        if (run === runId && running) fail(error);
      },
    );
    applying = link;
  };

  const restart = async (): Promise<void> => {
    const old = { subscription, loop };
    subscription = null;
    loop = null;
    await old.subscription?.unsubscribe();
    await old.loop;
    if (!stopped && !running) await start();
  };

  const scheduleRestart = (): void => {
    if (restartDelayMs <= 0 || stopped || restartTimer !== null) return;
    const delay = nextRestartDelay;
    nextRestartDelay = Math.min(nextRestartDelay * 2, MAX_RESTART_DELAY_MS);
    restartTimer = setTimeout(() => {
      restartTimer = null;
      restart().catch((error: unknown) => fail(error));
    }, delay);
    restartTimer.unref();
  };

  /** Waiters are answered false now: a reader gets its 503 at once, a startup does not hang. */
  const fail = (error: unknown): void => {
    lastError = error instanceof Error ? error.message : String(error);
    running = false;
    const stranded = waiters;
    waiters = [];
    for (const w of stranded) {
      clearTimeout(w.timer);
      w.resolve(false);
    }
    options.onError?.(error);
    scheduleRestart();
  };

  let batch: RecordedEvent[] = [];
  let pendingUpTo: bigint | null = null;
  let scheduled: { cancel(): void } | null = null;

  const flushPending = (): void => {
    scheduled?.cancel();
    scheduled = null;
    if (pendingUpTo === null) return;
    const events = batch;
    const upTo = pendingUpTo;
    batch = [];
    pendingUpTo = null;
    flush(events, upTo);
  };

  const flushLater = (): void => {
    if (scheduled !== null || pendingUpTo === null) return;
    const run = () => {
      scheduled = null;
      try {
        flushPending();
      } catch (error) {
        fail(error);
      }
    };
    if (flushDelayMs <= 0) {
      const immediate = setImmediate(run);
      scheduled = { cancel: () => clearImmediate(immediate) };
    } else {
      const timer = setTimeout(run, flushDelayMs);
      scheduled = { cancel: () => clearTimeout(timer) };
    }
  };

  const someoneWaits = (): boolean =>
    pendingUpTo !== null && waiters.some((w) => w.position <= (pendingUpTo as bigint));

  const run = async (sub: Subscription): Promise<void> => {
    const handle = (msg: SubscriptionMessage): void => {
      if (msg.kind === 'event') {
        if (accept === undefined || accept(msg.event)) batch.push(msg.event);
        pendingUpTo = msg.event.position;
      } else if (msg.kind === 'checkpoint') {
        if (position === null || msg.position > position) pendingUpTo = msg.position;
      } else {
        caughtUp = true;
        if (msg.position !== null && (position === null || msg.position > position)) {
          pendingUpTo = msg.position;
        }
      }
      if (batch.length >= batchSize || someoneWaits()) flushPending();
      else flushLater();
    };
    try {
      for await (const msg of sub) {
        if (!running) break;
        handle(msg);
        // An asynchronous sink: do not run ahead of what it has applied by more than a batch.
        if (applying !== null && batch.length === 0) await applying;
      }
      flushPending();
      if (applying !== null) await applying;
    } catch (error) {
      fail(error);
    }
  };

  const start = async (): Promise<void> => {
    if (running) return;
    if (checkpointRead !== null) {
      const read = checkpointRead;
      checkpointRead = null;
      position = await read;
    }
    if (applying !== null) await applying;
    if (running) return;
    runId += 1;
    stopped = false;
    running = true;
    caughtUp = false;
    lastError = null;
    // Whatever a failed run left unapplied is read again from `position`.
    scheduled?.cancel();
    scheduled = null;
    batch = [];
    pendingUpTo = null;
    subscription = store.subscribeToAll({
      fromPosition: position === null ? 'start' : position,
      filter: set.filter,
    });
    loop = run(subscription);
  };

  const stop = async (): Promise<void> => {
    stopped = true;
    if (restartTimer !== null) clearTimeout(restartTimer);
    restartTimer = null;
    running = false;
    await subscription?.unsubscribe();
    await loop;
    if (applying !== null) await applying;
    subscription = null;
    loop = null;
  };

  const waitFor = (target: bigint, timeoutMs: number): Promise<boolean> => {
    if (pendingUpTo !== null && pendingUpTo >= target && (position === null || position < target)) {
      try {
        flushPending();
      } catch (error) {
        fail(error);
      }
    }
    if (position !== null && position >= target) return Promise.resolve(true);
    // Not running (failed, or stopped): nothing will move the position while it waits.
    if (!running) return Promise.resolve(false);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        position: target,
        resolve,
        timer: setTimeout(() => {
          waiters = waiters.filter((w) => w !== waiter);
          resolve(false);
        }, timeoutMs),
      };
      waiters.push(waiter);
    });
  };

  const rebuild = async (onProgress?: (position: bigint) => void): Promise<void> => {
    await stop();
    await sink.reset();
    checkpointRead = null;
    position = null;
    const head = await store.headPosition();
    if (head !== null && onProgress) {
      const tick = setInterval(() => position !== null && onProgress(position), 250);
      await start();
      await waitFor(head, 24 * 60 * 60 * 1000);
      clearInterval(tick);
      onProgress(head);
    } else {
      await start();
    }
  };

  return {
    start,
    stop,
    status: () => ({ position, caughtUp, running, lastError }),
    waitFor,
    rebuild,
  };
};

/** A canonical dump of every table of a projection set: equal dumps ⇔ equal read models. */
export const dumpReadModels = (
  db: Database.Database,
  projections: readonly Projection[],
): string => {
  const parts: string[] = [];
  for (const p of projections) {
    for (const t of p.tables) {
      const rows = db.prepare(`SELECT * FROM ${t.name} ORDER BY ${t.orderBy}`).raw().all();
      parts.push(`${t.name}\n${rows.map((r) => JSON.stringify(r)).join('\n')}`);
    }
  }
  return parts.join('\n\n');
};
