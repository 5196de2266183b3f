export { openEventStoreDbStore, type EventStoreDbStore } from './esdb-event-store';
