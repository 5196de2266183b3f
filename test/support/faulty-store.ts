import { withHashChain } from '@arbor/audit';
import { type EventStore } from '@arbor/event-store';
import { eventStoreDataPath, openSqliteEventStore } from '@arbor/event-store/sqlite';
import { type ArborConfig } from '@arbor/application';
import { auditSecretOf } from '@arbor/application';

/** What SQLite throws on a failed write(2): better-sqlite3's SqliteError carries `code`. */
export const ioError = (): Error =>
  Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR_WRITE' });

export interface FaultPlan {
  /** 1-based number of the appendToStream call to fail; 0 = never. */
  failAt: number;
  /** Appends seen so far (failed ones included). */
  calls: number;
  /** Stream names of every append, in call order. */
  streams: string[];
}

export const faultPlan = (failAt = 0): FaultPlan => ({ failAt, calls: 0, streams: [] });

/**
 * Wraps a store so the plan's N-th append throws an I/O error before reaching the store — like
 * SQLite's own I/O-error tests, which fail the N-th write and check nothing half-done remains.
 */
export const withFaults = (store: EventStore, plan: FaultPlan): EventStore => ({
  kind: store.kind,
  appendToStream: (streamName, events, options) => {
    plan.calls++;
    plan.streams.push(streamName);
    if (plan.calls === plan.failAt) return Promise.reject(ioError());
    return store.appendToStream(streamName, events, options);
  },
  readStream: (...a) => store.readStream(...a),
  readAll: (...a) => store.readAll(...a),
  subscribeToAll: (...a) => store.subscribeToAll(...a),
  headPosition: () => store.headPosition(),
  close: () => store.close(),
});

/** The app's own store (SQLite + hash chain) with the fault below the hash chain. */
export const faultyStoreFactory =
  (plan: FaultPlan) =>
  (config: ArborConfig): EventStore =>
    withHashChain(
      withFaults(
        openSqliteEventStore({
          path: eventStoreDataPath(config.dataDir),
          synchronous: config.synchronous,
          groupCommit: config.groupCommit,
        }),
        plan,
      ),
      auditSecretOf(config),
    );
