import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  OnApplicationShutdown,
} from '@nestjs/common';
import { type EventStore } from '@arbor/event-store';
import { openEventStoreDbStore } from '@arbor/event-store/esdb';
import { eventStoreDataPath, openSqliteEventStore } from '@arbor/event-store/sqlite';
import { type ArborConfig } from '../config/config';

export const EVENT_STORE = Symbol('EVENT_STORE');

/** The embedded SQLite log by default; EventStoreDB when a connection string is configured. */
export const createEventStore = (config: ArborConfig): EventStore =>
  config.eventStoreConnectionString
    ? openEventStoreDbStore(config.eventStoreConnectionString)
    : openSqliteEventStore({
        path: eventStoreDataPath(config.dataDir),
        synchronous: config.synchronous,
        groupCommit: config.groupCommit,
      });

/** Closes the log last, after every subscriber has stopped. */
@Injectable()
export class StoreLifecycle implements BeforeApplicationShutdown, OnApplicationShutdown {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async beforeApplicationShutdown(): Promise<void> {
    // Subscribers unsubscribe in onModuleDestroy/onApplicationShutdown; the store goes last.
  }

  async onApplicationShutdown(): Promise<void> {
    await new Promise((r) => setImmediate(r));
    await this.store.close();
  }
}
