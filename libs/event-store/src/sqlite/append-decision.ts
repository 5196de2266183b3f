import { matchesExpectedRevision } from '../expected-revision';
import { type CurrentRevision, type ExpectedRevision } from '../types';

export interface StoredEventRef {
  stream: string;
  revision: bigint;
  position: bigint;
}

export interface AppendLookup {
  byId(eventId: string): StoredEventRef | undefined;
  atRevision(stream: string, revision: bigint): { eventId: string; position: bigint } | undefined;
}

export type AppendDecision =
  | { kind: 'write' }
  | { kind: 'idempotent'; lastRevision: bigint; lastPosition: bigint }
  | { kind: 'conflict' };

const WRITE: AppendDecision = { kind: 'write' };
const CONFLICT: AppendDecision = { kind: 'conflict' };

/** Loose expectation: a stored first id makes it a retry only if every id is in this stream. */
const decideLoose = (stream: string, ids: readonly string[], lookup: AppendLookup) => {
  if (ids.length === 0) return WRITE;
  const first = lookup.byId(ids[0]);
  if (first === undefined || first.stream !== stream) return WRITE;
  let last = first;
  for (let i = 1; i < ids.length; i++) {
    const ref = lookup.byId(ids[i]);
    if (ref === undefined || ref.stream !== stream) return CONFLICT;
    last = ref;
  }
  return { kind: 'idempotent', lastRevision: last.revision, lastPosition: last.position } as const;
};

/** Exact revision behind the stream's: a retry only if its events sit, in order, right after it. */
const decideRetry = (
  stream: string,
  expected: bigint,
  current: bigint,
  ids: readonly string[],
  lookup: AppendLookup,
): AppendDecision => {
  if (expected > current || ids.length === 0) return CONFLICT;
  let lastPosition = -1n;
  for (let i = 0; i < ids.length; i++) {
    const at = lookup.atRevision(stream, expected + 1n + BigInt(i));
    if (at === undefined || at.eventId !== ids[i]) return CONFLICT;
    lastPosition = at.position;
  }
  return { kind: 'idempotent', lastRevision: expected + BigInt(ids.length), lastPosition };
};

export const decideAppend = (
  stream: string,
  expected: ExpectedRevision,
  current: CurrentRevision,
  ids: readonly string[],
  lookup: AppendLookup,
): AppendDecision => {
  if (expected === 'any' || expected === 'stream_exists') {
    return matchesExpectedRevision(expected, current) ? decideLoose(stream, ids, lookup) : CONFLICT;
  }
  if (matchesExpectedRevision(expected, current)) return WRITE;
  const exact = expected === 'no_stream' ? -1n : expected;
  return decideRetry(stream, exact, current === 'no_stream' ? -1n : current, ids, lookup);
};
