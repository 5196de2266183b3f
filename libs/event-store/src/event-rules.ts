/** Rules both stores apply before writing: UUID ids (lower-case, as EventStoreDB), JSON data and metadata. */
import { randomUUID } from 'node:crypto';
import { InvalidEventError } from './errors';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (id: string): boolean => UUID.test(id);

export const eventIdOf = (id: string | undefined, index: number): string => {
  if (id === undefined) return randomUUID();
  if (typeof id !== 'string' || !isUuid(id)) {
    throw new InvalidEventError(`event ${index}: id must be a UUID, got ${JSON.stringify(id)}`);
  }
  return id.toLowerCase();
};

export const jsonTextOf = (value: unknown, what: string, index: number): string => {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    throw new InvalidEventError(`event ${index}: ${what} is not JSON (${String(error)})`);
  }
  if (text === undefined) throw new InvalidEventError(`event ${index}: ${what} is not JSON`);
  return text;
};

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' &&
  value !== null &&
  !Array.isArray(value) &&
  !ArrayBuffer.isView(value);

export const assertEventShape = (
  event: { type: unknown; metadata: unknown },
  index: number,
): void => {
  if (typeof event.type !== 'string' || event.type.length === 0) {
    throw new InvalidEventError(`event ${index}: type must be a non-empty string`);
  }
  if (!isPlainObject(event.metadata)) {
    throw new InvalidEventError(`event ${index}: metadata must be an object`);
  }
};
