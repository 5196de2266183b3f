/** The port's `$all` filter split between EventStoreDB's one-field server filter and `accepts`. */
import { EVENT_TYPE, STREAM_NAME, type Filter } from '@eventstore/db-client';
import { EventStoreError } from '../errors';
import { type AllFilter } from '../types';

export type ServerFilter =
  { on: 'streamName'; prefixes: string[] } | { on: 'eventType'; regex: string };

export interface FilterPlan {
  server: ServerFilter;
  accepts(event: { streamName: string; type: string }): boolean;
}

/** EventStoreDB's own "exclude system events" regex (the client's `excludeSystemEvents`). */
export const NON_SYSTEM_TYPE_REGEX = '^[^$].*';

export const isSystemEvent = (event: { streamName: string; type: string }): boolean =>
  event.type.startsWith('$') || event.streamName.startsWith('$');

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

export const DEFAULT_SEARCH_WINDOW = 32;

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
