export {
  eventStoreDataPath,
  openSqliteEventStore,
  type SqliteEventStore,
  type SqliteEventStoreOptions,
} from './sqlite-event-store';
export { type SynchronousMode } from './schema';
