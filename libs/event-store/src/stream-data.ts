import { type EventStore, type StreamData } from './types';

/**
 * `maxCount` events of a stream from `fromRevision` on, as type and data: through the store's own
 * `readStreamData` where it has one, else `readStream` (which throws for a stream without events).
 */
export const readStreamData = async (
  store: EventStore,
  streamName: string,
  range: { fromRevision: bigint; maxCount: number },
): Promise<StreamData[]> => {
  if (store.readStreamData !== undefined) return store.readStreamData(streamName, range);
  const events = await store.readStream(streamName, range);
  return events.map(({ revision, type, data }) => ({ revision, type, data }));
};
