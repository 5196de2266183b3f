/** Always filtered server-side: EventStoreDB sends checkpoints only to filtered subscriptions. */
import { END, START, type EventStoreDBClient, type ReadPosition } from '@eventstore/db-client';
import { type Subscription, type SubscribeToAllOptions } from '../types';
import { planFilter, toEsdbFilter } from './esdb-filter';
import { MAX_LOG_POSITION, toEsdbPosition } from './esdb-mapping';
import { headPosition } from './esdb-read';
import { attachListeners, checkpointReached, toSubscription } from './esdb-subscription';

export const subscriptionStart = (from: bigint | 'start' | 'end' | undefined): ReadPosition => {
  if (from === undefined || from === 'start') return START;
  if (from === 'end') return END;
  if (from < 0n) return START;
  if (from > MAX_LOG_POSITION) return END;
  return toEsdbPosition(from);
};

export const subscribeToAll = (
  client: EventStoreDBClient,
  options: SubscribeToAllOptions = {},
  onEnd: () => void = () => undefined,
): Subscription => {
  const plan = planFilter(options.filter);
  const filter = toEsdbFilter(plan.server, options.checkpointInterval ?? 32, checkpointReached);
  const fromPosition = subscriptionStart(options.fromPosition);
  // Read first so caught-up is at least this position; never rejects.
  const headBeforeSubscribe = headPosition(client).catch(() => null);
  const source = client.subscribeToAll({ fromPosition, filter });
  attachListeners(source);
  return toSubscription(
    source,
    { accepts: plan.accepts, checkpoints: options.filter !== undefined, headBeforeSubscribe },
    onEnd,
  );
};
