import { EventStoreDBClient } from '@eventstore/db-client';
import { StoreUnavailableError } from '../errors';
import { type EventStore, type Subscription } from '../types';
import { appendEvents } from './esdb-append';
import { DEFAULT_DEADLINE_MS, toStoreError } from './esdb-errors';
import { headPosition, readAllEvents, readStreamEvents } from './esdb-read';
import { subscribeToAll } from './esdb-subscribe';

export interface EventStoreDbStore extends EventStore {
  readonly kind: 'eventstoredb';
}

export interface EventStoreDbStoreOptions {
  /** Append/read deadline (default 10 s): the client bounds neither; subscriptions are unbounded. */
  deadlineMs?: number;
}

const connect = (connectionString: string): EventStoreDBClient => {
  try {
    return EventStoreDBClient.connectionString(connectionString);
  } catch (error) {
    throw toStoreError(error);
  }
};

/** Opens a client for `connectionString`; the connection is made by the first call. */
export const openEventStoreDbStore = (
  connectionString: string,
  storeOptions: EventStoreDbStoreOptions = {},
): EventStoreDbStore => {
  const client = connect(connectionString);
  const deadlineMs = storeOptions.deadlineMs ?? DEFAULT_DEADLINE_MS;
  const subscriptions = new Set<Subscription>();
  let closed = false;

  const open = () => {
    if (closed) throw new StoreUnavailableError('the EventStoreDB store is closed');
  };

  return {
    kind: 'eventstoredb',

    appendToStream: async (streamName, events, options) => {
      open();
      return appendEvents(client, streamName, events, options, deadlineMs);
    },

    readStream: async (streamName, options) => {
      open();
      return readStreamEvents(client, streamName, options, deadlineMs);
    },

    readAll: async (options) => {
      open();
      return readAllEvents(client, options, deadlineMs);
    },

    subscribeToAll: (options) => {
      open();
      const subscription = subscribeToAll(client, options, () =>
        subscriptions.delete(subscription),
      );
      subscriptions.add(subscription);
      return subscription;
    },

    headPosition: async () => {
      open();
      try {
        return await headPosition(client, deadlineMs);
      } catch (error) {
        throw toStoreError(error);
      }
    },

    close: async () => {
      if (closed) return;
      closed = true;
      await Promise.all([...subscriptions].map((subscription) => subscription.unsubscribe()));
      subscriptions.clear();
      await client.dispose();
    },
  };
};
