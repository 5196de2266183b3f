/**
 * Our `$all` filter (`{ streamPrefixes, eventTypes }`, both must match) against EventStoreDB's
 * server-side filter, which looks at ONE field: the stream name or the event type, not both.
 *
 * The plan: one part goes to the server, and `accepts` re-checks everything on the client, so the
 * result is exact whatever the server did:
 * - stream prefixes given → the server filters on stream-name prefixes; event types (if any) are
 *   checked client-side (prefixes are the selective part in Arbor: they carry the tenant);
 * - only event types given → the server filters on the event type with an anchored regex;
 * - nothing given, or an empty list (which matches nothing) → the server only excludes system
 *   events (types starting with `$`), which still gives us checkpoints.
 * System events (type or stream starting with `$`) are always dropped: the port's log has none.
 * Pure.
 */
import { EVENT_TYPE, STREAM_NAME, type Filter } from '@eventstore/db-client';
import { EventStoreError } from '../errors';
import { type AllFilter } from '../types';

export type ServerFilter =
  { on: 'streamName'; prefixes: string[] } | { on: 'eventType'; regex: string };

export interface FilterPlan {
  server: ServerFilter;
  /** The exact port filter, system events excluded. */
  accepts(event: { streamName: string; type: string }): boolean;
}

/** EventStoreDB's own "exclude system events" regex (the client's `excludeSystemEvents`). */
export const NON_SYSTEM_TYPE_REGEX = '^[^$].*';

export const isSystemEvent = (event: { streamName: string; type: string }): boolean =>
  event.type.startsWith('$') || event.streamName.startsWith('$');

/** Escapes regex metacharacters; the result means the same in .NET (the server) and JS. */
export const escapeRegex = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export const exactTypesRegex = (types: readonly string[]): string =>
  `^(?:${types.map(escapeRegex).join('|')})$`;

const serverFilterFor = (filter: AllFilter | undefined): ServerFilter => {
  const prefixes = filter?.streamPrefixes;
  const types = filter?.eventTypes;
  if (prefixes?.length === 0 || types?.length === 0) {
    return { on: 'eventType', regex: NON_SYSTEM_TYPE_REGEX };
  }
  if (prefixes !== undefined) return { on: 'streamName', prefixes: [...prefixes] };
  if (types !== undefined) return { on: 'eventType', regex: exactTypesRegex(types) };
  return { on: 'eventType', regex: NON_SYSTEM_TYPE_REGEX };
};

export const planFilter = (filter: AllFilter | undefined): FilterPlan => {
  const prefixes = filter?.streamPrefixes;
  const types = filter?.eventTypes === undefined ? undefined : new Set(filter.eventTypes);
  return {
    server: serverFilterFor(filter),
    accepts: (event) =>
      !isSystemEvent(event) &&
      (prefixes === undefined || prefixes.some((p) => event.streamName.startsWith(p))) &&
      (types === undefined || types.has(event.type)),
  };
};

/** EventStoreDB's default filter search window, and the unit its checkpoint interval counts in. */
export const DEFAULT_SEARCH_WINDOW = 32;

/**
 * The server sends a checkpoint every `checkpointIntervalMultiplier × maxSearchWindow` events
 * scanned. Our interval is in events: up to 32 it is exact (window = interval, multiplier 1);
 * above, it is rounded up to a multiple of 32 (window 32, multiplier = ceil(interval / 32)).
 */
export const checkpointSettings = (
  interval: number,
): { maxSearchWindow: number; checkpointInterval: number } => {
  if (!Number.isInteger(interval) || interval < 1) {
    throw new EventStoreError(`checkpointInterval must be a positive integer, got ${interval}`);
  }
  if (interval <= DEFAULT_SEARCH_WINDOW)
    return { maxSearchWindow: interval, checkpointInterval: 1 };
  return {
    maxSearchWindow: DEFAULT_SEARCH_WINDOW,
    checkpointInterval: Math.ceil(interval / DEFAULT_SEARCH_WINDOW),
  };
};

/** The client's `Filter` object for `subscribeToAll`. */
export const toEsdbFilter = (
  server: ServerFilter,
  interval: number,
  checkpointReached: NonNullable<Filter['checkpointReached']>,
): Filter => {
  const settings = checkpointSettings(interval);
  return server.on === 'streamName'
    ? { filterOn: STREAM_NAME, prefixes: server.prefixes, ...settings, checkpointReached }
    : { filterOn: EVENT_TYPE, regex: server.regex, ...settings, checkpointReached };
};
