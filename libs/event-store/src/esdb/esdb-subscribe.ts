/**
 * `subscribeToAll`: a catch-up subscription from an exclusive position that turns live.
 *
 * Always subscribes with a server-side filter (the port filter's server part, or "exclude system
 * events"), because EventStoreDB only sends checkpoints to filtered subscriptions; the full port
 * filter is re-checked client-side. Caught-up comes from the server's CaughtUp message, which the
 * client v6 turns into a `caughtUp` event: EventStoreDB 23.10 or later sends it (older servers do
 * not, and then no `caughtUp` message is ever delivered).
 */
import { END, START, type EventStoreDBClient, type ReadPosition } from '@eventstore/db-client';
import { type Subscription, type SubscribeToAllOptions } from '../types';
import { planFilter, toEsdbFilter } from './esdb-filter';
import { MAX_LOG_POSITION, toEsdbPosition } from './esdb-mapping';
import { headPosition } from './esdb-read';
import { attachListeners, checkpointReached, toSubscription } from './esdb-subscription';

/** Exclusive start. Negative means from the start; beyond any position means from the end. */
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
  // Asked before the subscription so that the server has caught up to at least this position
  // when it says so. Never rejects: without it the caught-up position is the last one seen.
  const headBeforeSubscribe = headPosition(client).catch(() => null);
  const source = client.subscribeToAll({ fromPosition, filter });
  attachListeners(source);
  return toSubscription(
    source,
    { accepts: plan.accepts, checkpoints: options.filter !== undefined, headBeforeSubscribe },
    onEnd,
  );
};
