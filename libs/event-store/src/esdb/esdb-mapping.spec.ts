import fc from 'fast-check';
import { EventStoreError, InvalidStreamNameError } from '../errors';
import { type ExpectedRevision } from '../types';
import {
  assertStreamName,
  directionOf,
  expectedOf,
  fromEsdbPosition,
  isValidLogPosition,
  limitOf,
  MAX_LOG_POSITION,
  readStart,
  toEsdbDirection,
  toEsdbExpectedRevision,
  toEsdbPosition,
  toEsdbReadPosition,
  toEsdbReadRevision,
} from './esdb-mapping';

describe('expected revision → client', () => {
  it.each<[ExpectedRevision, unknown]>([
    ['any', 'any'],
    ['no_stream', 'no_stream'],
    ['stream_exists', 'stream_exists'],
    [0n, 0n],
    [41n, 41n],
  ])(
    '%p → %p (the client constants ANY, NO_STREAM, STREAM_EXISTS, or the exact bigint)',
    (ours, theirs) => {
      expect(toEsdbExpectedRevision(ours)).toBe(theirs);
    },
  );

  it('defaults to any and refuses negative or unknown values', () => {
    expect(expectedOf(undefined)).toBe('any');
    expect(() => expectedOf(-1n)).toThrow(EventStoreError);
    expect(() => toEsdbExpectedRevision(-1n)).toThrow(EventStoreError);
    expect(() => expectedOf('latest' as unknown as ExpectedRevision)).toThrow(EventStoreError);
  });
});

describe('direction and maxCount', () => {
  it('maps forwards/backwards and defaults to forwards', () => {
    expect(toEsdbDirection(directionOf(undefined))).toBe('forwards');
    expect(toEsdbDirection(directionOf('backwards'))).toBe('backwards');
    expect(() => directionOf('sideways' as 'forwards')).toThrow(EventStoreError);
  });

  it('treats a missing maxCount as unbounded and refuses negative or fractional ones', () => {
    expect(limitOf(undefined)).toBe(Infinity);
    expect(limitOf(0)).toBe(0);
    expect(limitOf(7)).toBe(7);
    expect(() => limitOf(-1)).toThrow(EventStoreError);
    expect(() => limitOf(1.5)).toThrow(EventStoreError);
  });
});

describe('read starts', () => {
  it('default to the end the read starts from', () => {
    expect(readStart(undefined, 'forwards', 10n)).toBe('start');
    expect(readStart(undefined, 'backwards', 10n)).toBe('end');
  });

  it('clamp like the SQLite store: negative and beyond-max starts', () => {
    expect(readStart(-5n, 'forwards', 10n)).toBe('start');
    expect(readStart(-5n, 'backwards', 10n)).toBe('none');
    expect(readStart(11n, 'forwards', 10n)).toBe('none');
    expect(readStart(11n, 'backwards', 10n)).toBe('end');
    expect(readStart(10n, 'backwards', 10n)).toBe(10n);
  });

  it('map to the client START / END / exact revision', () => {
    expect(toEsdbReadRevision('start')).toBe('start');
    expect(toEsdbReadRevision('end')).toBe('end');
    expect(toEsdbReadRevision(3n)).toBe(3n);
  });
});

describe('positions', () => {
  it('a position becomes { commit: p, prepare: p } and maps back to p (every valid p)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: MAX_LOG_POSITION }), (p) => {
        const esdb = toEsdbPosition(p);
        expect(esdb).toEqual({ commit: p, prepare: p });
        expect(fromEsdbPosition(esdb)).toBe(p);
      }),
    );
  });

  it('the commit position is what identifies an event read back', () => {
    expect(fromEsdbPosition({ commit: 120n, prepare: 90n })).toBe(120n);
  });

  it('refuses positions outside the log (negative, or the "no position" ulong max)', () => {
    expect(isValidLogPosition(2n ** 64n - 1n)).toBe(false);
    expect(() => toEsdbPosition(-1n)).toThrow(EventStoreError);
    expect(() => toEsdbPosition(2n ** 64n - 1n)).toThrow(EventStoreError);
  });

  it('read positions map to START / END / { commit, prepare }', () => {
    expect(toEsdbReadPosition('start')).toBe('start');
    expect(toEsdbReadPosition('end')).toBe('end');
    expect(toEsdbReadPosition(5n)).toEqual({ commit: 5n, prepare: 5n });
  });
});

describe('stream names', () => {
  it('refuses empty and system ($) names', () => {
    expect(() => assertStreamName('')).toThrow(InvalidStreamNameError);
    expect(() => assertStreamName('$all')).toThrow(InvalidStreamNameError);
    expect(() => assertStreamName('conv-t1.c1')).not.toThrow();
  });
});
