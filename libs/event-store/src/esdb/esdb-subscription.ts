/**
 * The client's `$all` subscription (a Node Transform stream) as the port's `Subscription`.
 *
 * Ordering. The client (v6.2.1, `dist/streams/utils/Subscription.js`) reports a caught-up message
 * as a `caughtUp` EventEmitter event and a checkpoint through the filter's awaited
 * `checkpointReached` callback, while events travel through the stream's buffer. Mixing the two
 * channels could deliver `caughtUp` before events still sitting in the buffer. Both signals fire
 * synchronously inside the stream's `_transform`, after every earlier event has been pushed, so we
 * push a marker object into the same buffer at that moment: iterating the stream then yields
 * events, checkpoints and caught-up in exactly the order the server sent them.
 */
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

/** The part of the client's subscription this module uses (the real one is a Transform). */
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

/** The filter's `checkpointReached`: the client awaits it inside `_transform`, in order. */
export const checkpointReached = (subscription: AllStreamSubscription, position: Position): void =>
  insert(subscription, { [MARKER]: 'checkpoint', position: position.commit });

/**
 * Must run before the first response is processed: right after `subscribeToAll`. Also keeps a
 * stream error from being an unhandled 'error' event while nobody iterates (iteration still sees
 * it and throws it).
 */
export const attachListeners = (source: SubscriptionSource): void => {
  source.on('caughtUp', () => insert(source, { [MARKER]: 'caughtUp' }));
  source.on('error', () => undefined);
};

export interface MessageSettings {
  /** The port filter, re-checked client-side (system events excluded). */
  accepts(event: { streamName: string; type: string }): boolean;
  /** Checkpoints are only reported to filtered subscribers, as the SQLite store does. */
  checkpoints: boolean;
  /**
   * The head (last non-system position) read just before subscribing: the caught-up position is
   * the greater of it and the last position seen, since the client's caught-up carries none.
   */
  headBeforeSubscribe: Promise<bigint | null>;
}

const max = (a: bigint | null, b: bigint | null): bigint | null =>
  a === null ? b : b === null ? a : a > b ? a : b;

const eventOf = (item: unknown): EsdbRecordedEvent | undefined =>
  typeof item === 'object' && item !== null && 'event' in item
    ? (item as { event?: EsdbRecordedEvent }).event
    : undefined;

/** Turns the client's stream (with our markers) into the port's messages. */
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

/**
 * Wraps a started client subscription. `unsubscribe` cancels the gRPC call and destroys the
 * stream; a pending iteration then ends quietly (the stream's premature-close error is expected).
 * Any other failure (server gone, bad event) ends the iteration with the port's error.
 */
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
