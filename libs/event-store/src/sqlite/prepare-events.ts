import { InvalidEventError, InvalidStreamNameError } from '../errors';
import { assertEventShape, eventIdOf, isUuid, jsonTextOf } from '../event-rules';
import { type EventData } from '../types';
import { encodeMetadata, type StoredMetadata } from './row-format';

export interface PreparedEvent {
  id: string;
  type: string;
  data: string;
  metadata: StoredMetadata;
}

export { isUuid };

const prepareEvent = (event: EventData, index: number): PreparedEvent => {
  assertEventShape(event, index);
  return {
    id: eventIdOf(event.id, index),
    type: event.type,
    data: jsonTextOf(event.data, 'data', index),
    metadata: encodeMetadata(event.metadata, index),
  };
};

/** Validates and serializes an append before any lock is taken, so a bad event writes nothing. */
export const prepareEvents = (events: readonly EventData[]): PreparedEvent[] => {
  if (!Array.isArray(events)) throw new InvalidEventError('events must be an array');
  return events.map(prepareEvent);
};

export const assertStreamName = (streamName: string): void => {
  if (typeof streamName !== 'string' || streamName.length === 0 || streamName.startsWith('$')) {
    throw new InvalidStreamNameError(
      `stream name must be a non-empty string not starting with "$", got ${JSON.stringify(streamName)}`,
    );
  }
};
