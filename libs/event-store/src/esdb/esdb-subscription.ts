/** The client's `$all` subscription as the port's `Subscription` (ordering markers: README). */
import { type AllStreamSubscription, type Position } from '@eventstore/db-client';
import { type RecordedEvent as EsdbRecordedEvent } from '@eventstore/db-client';
import { type Subscription, type SubscriptionMessage } from '../types';
import { toStoreError } from './esdb-errors';
import { toRecordedEvent } from './esdb-events';
import { isValidLogPosition } from './esdb-mapping';

const MARKER = Symbol('arbor.esdb.marker');

type Marker = { [MARKER]: 'caughtUp' } | { [MARKER]: 'checkpoint'; position: bigint };

const isMarker = (item: unknown): item is Marker =>
  typeof item === 'object' && item !== null && MARKER in item;

export type SubscriptionSource = Pick<
  AllStreamSubscription,
  'push' | 'on' | 'unsubscribe' | 'destroy' | 'destroyed' | 'readableEnded'
> &
  AsyncIterable<unknown>;

const insert = (
  source: Pick<SubscriptionSource, 'push' | 'destroyed' | 'readableEnded'>,
  marker: Marker,
) => {
  if (!source.destroyed && !source.readableEnded) source.push(marker);
};

export const checkpointReached = (subscription: AllStreamSubscription, position: Position): void =>
  insert(subscription, { [MARKER]: 'checkpoint', position: position.commit });

/** Call right after `subscribeToAll`; also keeps a stream error from going unhandled. */
export const attachListeners = (source: SubscriptionSource): void => {
  source.on('caughtUp', () => insert(source, { [MARKER]: 'caughtUp' }));
  source.on('error', () => undefined);
};

export interface MessageSettings {
  accepts(event: { streamName: string; type: string }): boolean;
  checkpoints: boolean;
  /** Head read before subscribing: the client's caught-up carries no position. */
  headBeforeSubscribe: Promise<bigint | null>;
}

const max = (a: bigint | null, b: bigint | null): bigint | null =>
  a === null ? b : b === null ? a : a > b ? a : b;

const eventOf = (item: unknown): EsdbRecordedEvent | undefined =>
  typeof item === 'object' && item !== null && 'event' in item
    ? (item as { event?: EsdbRecordedEvent }).event
    : undefined;

export async function* toMessages(
  source: AsyncIterable<unknown>,
  settings: MessageSettings,
): AsyncGenerator<SubscriptionMessage, void, undefined> {
  let seen: bigint | null = null;
  let caughtUp = false;
  for await (const item of source) {
    if (isMarker(item)) {
      if (item[MARKER] === 'caughtUp') {
        if (caughtUp) continue; // after a fall-behind the server catches up again: once is enough
        caughtUp = true;
        yield { kind: 'caughtUp', position: max(seen, await settings.headBeforeSubscribe) };
      } else if (settings.checkpoints && isValidLogPosition(item.position)) {
        // Never move a checkpoint backwards (older servers could repeat a stale one when live).
        if (seen !== null && item.position < seen) continue;
        seen = item.position;
        yield { kind: 'checkpoint', position: item.position };
      }
      continue;
    }
    const event = eventOf(item);
    if (event === undefined) continue;
    const position = event.position?.commit;
    if (position !== undefined && isValidLogPosition(position)) seen = max(seen, position);
    if (!settings.accepts({ streamName: event.streamId, type: event.type })) continue;
    yield { kind: 'event', event: toRecordedEvent(event) };
  }
}

/** Wraps a started subscription; `unsubscribe` ends a pending iteration quietly. */
export const toSubscription = (
  source: SubscriptionSource,
  settings: MessageSettings,
  onEnd: () => void = () => undefined,
): Subscription => {
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopping ??= source
      .unsubscribe()
      .catch(() => undefined)
      .then(() => {
        source.destroy();
        onEnd();
      }));

  async function* run(): AsyncGenerator<SubscriptionMessage, void, undefined> {
    try {
      yield* toMessages(source, settings);
    } catch (error) {
      if (stopping === undefined) throw toStoreError(error);
    } finally {
      await stop();
    }
  }

  let iterator: AsyncGenerator<SubscriptionMessage, void, undefined> | undefined;
  return {
    [Symbol.asyncIterator]: () => (iterator ??= run()),
    unsubscribe: stop,
  };
};
