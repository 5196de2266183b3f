/** The port's whole contract through the chain decorator: reads drop `metadata.chain` so round trips compare. */
import { type EventStore, type RecordedEvent, type SubscriptionMessage } from '@arbor/event-store';
import { withoutChain } from '../chain';

const stripChain = (event: RecordedEvent): RecordedEvent => ({
  ...event,
  metadata: withoutChain(event.metadata) as RecordedEvent['metadata'],
});

export const chainBlind = (store: EventStore): EventStore => ({
  ...store,
  kind: store.kind,
  appendToStream: (...args) => store.appendToStream(...args),
  readStream: async (...args) => (await store.readStream(...args)).map(stripChain),
  readAll: async (...args) => (await store.readAll(...args)).map(stripChain),
  headPosition: () => store.headPosition(),
  close: () => store.close(),
  subscribeToAll: (options) => {
    const subscription = store.subscribeToAll(options);
    return {
      unsubscribe: () => subscription.unsubscribe(),
      [Symbol.asyncIterator]: () => {
        const inner = subscription[Symbol.asyncIterator]();
        return {
          next: async (): Promise<IteratorResult<SubscriptionMessage>> => {
            const result = await inner.next();
            if (result.done || result.value.kind !== 'event') return result;
            return { done: false, value: { kind: 'event', event: stripChain(result.value.event) } };
          },
          return: async () => inner.return?.() ?? { done: true, value: undefined },
        };
      },
    };
  },
});
