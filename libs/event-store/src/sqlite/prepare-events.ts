import { randomUUID } from 'node:crypto';
import { InvalidEventError, InvalidStreamNameError } from '../errors';
import { type EventData } from '../types';

/** An event ready to be written: id checked or generated, data and metadata serialized once. */
export interface PreparedEvent {
  id: string;
  type: string;
  data: string;
  metadata: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (id: string): boolean => UUID.test(id);

/** EventStoreDB requires UUID event ids; we store them lower-case, as it prints them. */
const eventId = (id: string | undefined, index: number): string => {
  if (id === undefined) return randomUUID();
  if (typeof id !== 'string' || !isUuid(id)) {
    throw new InvalidEventError(`event ${index}: id must be a UUID, got ${JSON.stringify(id)}`);
  }
  return id.toLowerCase();
};

const json = (value: unknown, what: string, index: number): string => {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    throw new InvalidEventError(`event ${index}: ${what} is not JSON (${String(error)})`);
  }
  if (text === undefined) throw new InvalidEventError(`event ${index}: ${what} is not JSON`);
  return text;
};

const prepareEvent = (event: EventData, index: number): PreparedEvent => {
  if (typeof event.type !== 'string' || event.type.length === 0) {
    throw new InvalidEventError(`event ${index}: type must be a non-empty string`);
  }
  if (typeof event.metadata !== 'object' || event.metadata === null) {
    throw new InvalidEventError(`event ${index}: metadata must be an object`);
  }
  return {
    id: eventId(event.id, index),
    type: event.type,
    data: json(event.data, 'data', index),
    metadata: json(event.metadata, 'metadata', index),
  };
};

/** Validates and serializes an append before any lock is taken, so a bad event writes nothing. */
export const prepareEvents = (events: readonly EventData[]): PreparedEvent[] => {
  if (!Array.isArray(events)) throw new InvalidEventError('events must be an array');
  return events.map(prepareEvent);
};

/** Stream names must be non-empty; `$` names are EventStoreDB's system streams. */
export const assertStreamName = (streamName: string): void => {
  if (typeof streamName !== 'string' || streamName.length === 0 || streamName.startsWith('$')) {
    throw new InvalidStreamNameError(
      `stream name must be a non-empty string not starting with "$", got ${JSON.stringify(streamName)}`,
    );
  }
};
