import {
  BACKWARDS,
  FORWARDS,
  type EventStoreDBClient,
  type RecordedEvent as EsdbRecordedEvent,
  type ResolvedEvent,
  type AllStreamResolvedEvent,
  type StreamingRead,
} from '@eventstore/db-client';
import { StreamNotFoundError } from '../errors';
import { type ReadAllOptions, type ReadStreamOptions, type RecordedEvent } from '../types';
import { DEFAULT_DEADLINE_MS, EsdbDeadlineError, toStoreError } from './esdb-errors';
import { toRecordedEvent } from './esdb-events';
import { planFilter } from './esdb-filter';
import {
  assertStreamName,
  directionOf,
  limitOf,
  MAX_LOG_POSITION,
  MAX_REVISION,
  readStart,
  toEsdbDirection,
  toEsdbPosition,
  toEsdbReadPosition,
  toEsdbReadRevision,
} from './esdb-mapping';

type Keep = (event: EsdbRecordedEvent) => boolean;

/** Maps events `keep` accepts up to `limit`; drains on early stop and cancels after `deadlineMs`. */
export const collect = async (
  read: StreamingRead<ResolvedEvent | AllStreamResolvedEvent>,
  keep: Keep,
  limit: number,
  deadlineMs: number = DEFAULT_DEADLINE_MS,
): Promise<RecordedEvent[]> => {
  const out: RecordedEvent[] = [];
  let finished = false;
  const timer = setTimeout(
    () => read.destroy(new EsdbDeadlineError('a read', deadlineMs)),
    deadlineMs,
  );
  try {
    if (limit <= 0) return out;
    for await (const resolved of read.iterator({ destroyOnReturn: false }) as AsyncIterable<
      ResolvedEvent | AllStreamResolvedEvent
    >) {
      const event = resolved.event;
      if (event === undefined || !keep(event)) continue;
      out.push(toRecordedEvent(event));
      if (out.length >= limit) return out;
    }
    finished = true;
    return out;
  } finally {
    clearTimeout(timer);
    if (!finished) {
      read.on('error', () => undefined);
      await read.cancel().catch(() => undefined);
      read.resume();
    }
  }
};

const commitOf = (event: EsdbRecordedEvent): bigint => event.position?.commit ?? -1n;

export const readStreamEvents = async (
  client: EventStoreDBClient,
  streamName: string,
  options: ReadStreamOptions = {},
  deadlineMs: number = DEFAULT_DEADLINE_MS,
): Promise<RecordedEvent[]> => {
  assertStreamName(streamName);
  const direction = directionOf(options.direction);
  const limit = limitOf(options.maxCount);
  const start = readStart(options.fromRevision, direction, MAX_REVISION);
  try {
    if (start === 'none' || limit === 0) {
      // Nothing to return, but a missing stream must still throw: ask for one event, keep none.
      await collect(client.readStream(streamName, { maxCount: 1 }), () => false, 1, deadlineMs);
      return [];
    }
    const read = client.readStream(streamName, {
      fromRevision: toEsdbReadRevision(start),
      direction: toEsdbDirection(direction),
      ...(limit === Infinity ? {} : { maxCount: limit }),
    });
    return await collect(read, () => true, limit, deadlineMs);
  } catch (error) {
    throw toStoreError(error, { streamName });
  }
};

const readAllFrom = (
  client: EventStoreDBClient,
  from: bigint | 'start' | 'end',
  backwards: boolean,
  keep: Keep,
  limit: number,
  deadlineMs: number,
): Promise<RecordedEvent[]> =>
  collect(
    client.readAll({
      fromPosition: toEsdbReadPosition(from),
      direction: backwards ? BACKWARDS : FORWARDS,
    }),
    keep,
    limit,
    deadlineMs,
  );

const eventAt = (client: EventStoreDBClient, position: bigint, keep: Keep, deadlineMs: number) =>
  collect(
    client.readAll({ fromPosition: toEsdbPosition(position), direction: FORWARDS, maxCount: 1 }),
    (event) => commitOf(event) === position && keep(event),
    1,
    deadlineMs,
  );

export const readAllEvents = async (
  client: EventStoreDBClient,
  options: ReadAllOptions = {},
  deadlineMs: number = DEFAULT_DEADLINE_MS,
): Promise<RecordedEvent[]> => {
  const direction = directionOf(options.direction);
  const limit = limitOf(options.maxCount);
  const { accepts } = planFilter(options.filter);
  const keep: Keep = (event) => accepts({ streamName: event.streamId, type: event.type });
  const start = readStart(options.fromPosition, direction, MAX_LOG_POSITION);
  if (start === 'none' || limit === 0) return [];
  try {
    if (typeof start !== 'bigint')
      return await readAllFrom(client, start, direction === 'backwards', keep, limit, deadlineMs);
    if (direction === 'forwards') {
      const from = (e: EsdbRecordedEvent) => commitOf(e) >= start && keep(e);
      return await readAllFrom(client, start, false, from, limit, deadlineMs);
    }
    const first = await eventAt(client, start, keep, deadlineMs);
    const rest = await readAllFrom(
      client,
      start,
      true,
      (e) => commitOf(e) < start && keep(e),
      limit - first.length,
      deadlineMs,
    );
    return [...first, ...rest];
  } catch (error) {
    throw toStoreError(error);
  }
};

export const headPosition = async (
  client: EventStoreDBClient,
  deadlineMs: number = DEFAULT_DEADLINE_MS,
): Promise<bigint | null> => {
  const [last] = await readAllEvents(client, { direction: 'backwards', maxCount: 1 }, deadlineMs);
  return last?.position ?? null;
};

export const lastEventOf = async (
  client: EventStoreDBClient,
  streamName: string,
  deadlineMs: number = DEFAULT_DEADLINE_MS,
): Promise<RecordedEvent | null> => {
  try {
    const [last] = await readStreamEvents(
      client,
      streamName,
      { direction: 'backwards', maxCount: 1 },
      deadlineMs,
    );
    return last ?? null;
  } catch (error) {
    if (error instanceof StreamNotFoundError) return null;
    throw error;
  }
};

export const eventAtRevision = async (
  client: EventStoreDBClient,
  streamName: string,
  revision: bigint,
  deadlineMs: number = DEFAULT_DEADLINE_MS,
): Promise<RecordedEvent | undefined> => {
  const [event] = await readStreamEvents(
    client,
    streamName,
    { fromRevision: revision, direction: 'forwards', maxCount: 1 },
    deadlineMs,
  );
  return event?.revision === revision ? event : undefined;
};
