import {
  ANY as ESDB_ANY,
  BACKWARDS as ESDB_BACKWARDS,
  END as ESDB_END,
  FORWARDS as ESDB_FORWARDS,
  NO_STREAM as ESDB_NO_STREAM,
  START as ESDB_START,
  STREAM_EXISTS as ESDB_STREAM_EXISTS,
  type AppendExpectedRevision,
  type Direction as EsdbDirection,
  type Position,
  type ReadPosition,
  type ReadRevision,
} from '@eventstore/db-client';
import { EventStoreError, InvalidStreamNameError } from '../errors';
import { type Direction, type ExpectedRevision } from '../types';

export const assertStreamName = (streamName: string): void => {
  if (typeof streamName !== 'string' || streamName.length === 0 || streamName.startsWith('$')) {
    throw new InvalidStreamNameError(
      `stream name must be a non-empty string not starting with "$", got ${JSON.stringify(streamName)}`,
    );
  }
};

export const expectedOf = (expected: ExpectedRevision | undefined): ExpectedRevision => {
  if (expected === undefined) return 'any';
  if (typeof expected === 'bigint') {
    if (expected < 0n)
      throw new EventStoreError(`an expected revision must be >= 0, got ${expected}`);
    return expected;
  }
  if (expected === 'any' || expected === 'no_stream' || expected === 'stream_exists')
    return expected;
  throw new EventStoreError(`invalid expected revision ${String(expected)}`);
};

export const toEsdbExpectedRevision = (expected: ExpectedRevision): AppendExpectedRevision => {
  switch (expected) {
    case 'any':
      return ESDB_ANY;
    case 'no_stream':
      return ESDB_NO_STREAM;
    case 'stream_exists':
      return ESDB_STREAM_EXISTS;
    default:
      return expectedOf(expected);
  }
};

export const directionOf = (direction: Direction | undefined): Direction => {
  if (direction === undefined) return 'forwards';
  if (direction === 'forwards' || direction === 'backwards') return direction;
  throw new EventStoreError(`direction must be 'forwards' or 'backwards'`);
};

export const toEsdbDirection = (direction: Direction): EsdbDirection =>
  direction === 'backwards' ? ESDB_BACKWARDS : ESDB_FORWARDS;

export const limitOf = (maxCount: number | undefined): number => {
  if (maxCount === undefined || maxCount === Infinity) return Infinity;
  if (!Number.isInteger(maxCount) || maxCount < 0) {
    throw new EventStoreError('maxCount must be a non-negative integer');
  }
  return maxCount;
};

export type ReadStart = bigint | 'start' | 'end' | 'none';

/** Clamps a read's inclusive start as the SQLite store does. */
export const readStart = (
  from: bigint | 'start' | 'end' | undefined,
  direction: Direction,
  max: bigint,
): ReadStart => {
  if (from === undefined) return direction === 'forwards' ? 'start' : 'end';
  if (from === 'start' || from === 'end') return from;
  if (typeof from !== 'bigint')
    throw new EventStoreError('a revision or position must be a bigint');
  if (from < 0n) return direction === 'forwards' ? 'start' : 'none';
  if (from > max) return direction === 'forwards' ? 'none' : 'end';
  return from;
};

export const MAX_REVISION = 2n ** 63n - 1n;

export const toEsdbReadRevision = (start: bigint | 'start' | 'end'): ReadRevision =>
  start === 'start' ? ESDB_START : start === 'end' ? ESDB_END : start;

/** Largest value EventStoreDB uses as "no position" (ulong.MaxValue); real log positions are < 2^63. */
export const MAX_LOG_POSITION = 2n ** 63n - 1n;

export const isValidLogPosition = (position: bigint): boolean =>
  position >= 0n && position <= MAX_LOG_POSITION;

/** Commit position == prepare position for gRPC appends (README: The EventStoreDB adapter's choices). */
export const toEsdbPosition = (position: bigint): Position => {
  if (!isValidLogPosition(position)) {
    throw new EventStoreError(`position must be between 0 and 2^63-1, got ${position}`);
  }
  return { commit: position, prepare: position };
};

export const fromEsdbPosition = (position: Position): bigint => position.commit;

export const toEsdbReadPosition = (start: bigint | 'start' | 'end'): ReadPosition =>
  start === 'start' ? ESDB_START : start === 'end' ? ESDB_END : toEsdbPosition(start);
