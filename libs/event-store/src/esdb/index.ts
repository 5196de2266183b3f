export { openEventStoreDbStore, type EventStoreDbStore } from './esdb-event-store';
export {
  esdbKeyStreams,
  type EsdbKeyStoreOptions,
  type KeyStreams,
  openEventStoreDbKeyStore,
  openKeyStreamsKeyStore,
} from './esdb-key-store';
