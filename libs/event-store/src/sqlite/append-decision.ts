import { matchesExpectedRevision } from '../expected-revision';
import { type CurrentRevision, type ExpectedRevision } from '../types';

/** Where an event id is already stored. */
export interface StoredEventRef {
  stream: string;
  revision: bigint;
  position: bigint;
}

/** Read access the decision needs; the SQLite store answers each with one indexed lookup. */
export interface AppendLookup {
  /** The stored event with this id, anywhere in the log. */
  byId(eventId: string): StoredEventRef | undefined;
  /** The id and position of the event at `revision` of `stream`. */
  atRevision(stream: string, revision: bigint): { eventId: string; position: bigint } | undefined;
}

export type AppendDecision =
  /** Write the events at the next revisions (a duplicate id can still fail the write). */
  | { kind: 'write' }
  /** Every event is already stored as the result of this same append: succeed, write nothing. */
  | { kind: 'idempotent'; lastRevision: bigint; lastPosition: bigint }
  /** WrongExpectedVersion. */
  | { kind: 'conflict' };

const WRITE: AppendDecision = { kind: 'write' };
const CONFLICT: AppendDecision = { kind: 'conflict' };

/**
 * `any` / `stream_exists`: EventStoreDB looks the ids up. If the first id is not stored in this
 * stream the append is new and is written. If it is, every id must be stored in this stream
 * (then the append is a retry: idempotent), otherwise the retry is corrupted: conflict.
 */
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

/**
 * An exact revision (`no_stream` is revision -1) that is not the stream's: ahead of it is a
 * conflict; behind it, the append is a retry only if its events sit, in order, at the revisions
 * right after the expected one. Anything else (none or only some of them there) is a conflict.
 */
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

/** EventStoreDB's commit check (expected revision + idempotency), for one stream. Pure. */
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
  // The hot path: the writer is at the stream's revision.
  if (matchesExpectedRevision(expected, current)) return WRITE;
  const exact = expected === 'no_stream' ? -1n : expected;
  return decideRetry(stream, exact, current === 'no_stream' ? -1n : current, ids, lookup);
};
