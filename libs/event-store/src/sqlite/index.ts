export {
  eventStoreDataPath,
  openSqliteEventStore,
  type SqliteEventStore,
  type SqliteEventStoreOptions,
} from './sqlite-event-store';
export { type SynchronousMode } from './schema';
export { DEFAULT_CHECKPOINT_INTERVAL_MS, startWalCheckpoints } from './wal-checkpoints';
export { decodeMetadata, encodeMetadata, ROW_FORMAT, type StoredMetadata } from './row-format';
