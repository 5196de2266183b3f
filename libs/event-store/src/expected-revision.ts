import { type CurrentRevision, type ExpectedRevision } from './types';

/** EventStoreDB's rule: does a stream at `current` satisfy `expected`? Pure. */
export const matchesExpectedRevision = (
  expected: ExpectedRevision,
  current: CurrentRevision,
): boolean => {
  switch (expected) {
    case 'any':
      return true;
    case 'no_stream':
      return current === 'no_stream';
    case 'stream_exists':
      return current !== 'no_stream';
    default:
      return current === expected;
  }
};

/** The revision a stream will be at after appending `count` events to it. */
export const nextRevision = (current: CurrentRevision, count: number): bigint =>
  (current === 'no_stream' ? -1n : current) + BigInt(count);
