import {
  jsonEvent,
  type EventData as EsdbEventData,
  type JSONType,
  type RecordedEvent as EsdbRecordedEvent,
} from '@eventstore/db-client';
import { EventStoreError, InvalidEventError } from '../errors';
import { assertEventShape, eventIdOf, jsonTextOf } from '../event-rules';
import { type EventData, type EventMetadata, type RecordedEvent } from '../types';
import { isValidLogPosition } from './esdb-mapping';

const assertJson = (value: unknown, what: string, index: number): void => {
  jsonTextOf(value, what, index);
};

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' &&
  value !== null &&
  !Array.isArray(value) &&
  !ArrayBuffer.isView(value);

export const toEsdbEventData = (event: EventData, index: number): EsdbEventData => {
  assertEventShape(event, index);
  assertJson(event.data, 'data', index);
  assertJson(event.metadata, 'metadata', index);
  return jsonEvent({
    id: eventIdOf(event.id, index),
    type: event.type,
    // The client's JSONType omits scalars, but it only passes data to JSON.stringify.
    data: event.data as JSONType,
    metadata: event.metadata,
  });
};

export const toEsdbEvents = (events: readonly EventData[]): EsdbEventData[] => {
  if (!Array.isArray(events)) throw new InvalidEventError('events must be an array');
  return events.map(toEsdbEventData);
};

const describe = (event: EsdbRecordedEvent): string =>
  `event ${event.id} (${event.streamId}@${event.revision})`;

const toMetadata = (event: EsdbRecordedEvent): EventMetadata => {
  let metadata: unknown = event.metadata;
  if (metadata instanceof Uint8Array) {
    try {
      metadata = JSON.parse(Buffer.from(metadata).toString('utf8'));
    } catch {
      throw new EventStoreError(`${describe(event)}: metadata is not JSON`);
    }
  }
  if (!isPlainObject(metadata)) {
    throw new EventStoreError(`${describe(event)}: metadata is not a JSON object`);
  }
  return metadata as EventMetadata;
};

const toPosition = (event: EsdbRecordedEvent): bigint => {
  const position = event.position?.commit;
  if (position === undefined || !isValidLogPosition(position)) {
    throw new EventStoreError(
      `${describe(event)}: the server sent no log position (EventStoreDB >= 22.6 is required)`,
    );
  }
  return position;
};

export const toRecordedEvent = (event: EsdbRecordedEvent): RecordedEvent => {
  if (!event.isJson) throw new EventStoreError(`${describe(event)}: not a JSON event`);
  return {
    id: event.id,
    streamName: event.streamId,
    revision: event.revision,
    position: toPosition(event),
    type: event.type,
    data: event.data,
    metadata: toMetadata(event),
    created: event.created,
  };
};
