/**
 * `appendToStream` on EventStoreDB. The server checks the expected revision and applies its own
 * idempotency rules (re-appending stored event ids), which are the rules the port adopts.
 *
 * The result's `position` must be the position of the append's LAST event. The server's reply
 * carries a position, but which record it names (first or last event of the append, and for an
 * idempotent retry the original write or something else) is not documented and differs between
 * server code paths; we could not check it against a live server. So we read the event at
 * `nextExpectedRevision` back and take its position: one extra round trip per append, exact in
 * every case (that event never changes once written). Worth revisiting after a live run.
 *
 * Deadlines. The client gives a BatchAppend no deadline of its own (its stream has none, and a
 * reply that never comes leaves the append pending for good), so the adapter bounds every append
 * by `deadlineMs`. A timed-out append may have been applied; it is sent once more with the SAME
 * event ids (generated ids included: they were made before the first try), which the server
 * answers from its idempotency rules: the original result if it was applied, a write if not.
 * A second timeout fails with StoreUnavailableError.
 *
 * An empty append writes nothing; the server would not report a usable revision for a missing
 * stream, so it is answered here: check the expected revision against the stream's last event,
 * then report where the stream is (-1 / -1 when it does not exist), as the SQLite store does.
 */
import {
  DeadlineExceededError as EsdbDeadlineExceededError,
  type AppendResult as EsdbAppendResult,
  type EventData as EsdbEventData,
  type EventStoreDBClient,
} from '@eventstore/db-client';
import { EventStoreError, WrongExpectedVersionError } from '../errors';
import { matchesExpectedRevision } from '../expected-revision';
import {
  type AppendOptions,
  type AppendResult,
  type CurrentRevision,
  type EventData,
  type ExpectedRevision,
} from '../types';
import { DEFAULT_DEADLINE_MS, EsdbDeadlineError, toStoreError } from './esdb-errors';
import { toEsdbEvents } from './esdb-events';
import { assertStreamName, expectedOf, toEsdbExpectedRevision } from './esdb-mapping';
import { eventAtRevision, lastEventOf } from './esdb-read';

const appendNothing = async (
  client: EventStoreDBClient,
  streamName: string,
  expected: ExpectedRevision,
  deadlineMs: number,
): Promise<AppendResult> => {
  const last = await lastEventOf(client, streamName, deadlineMs);
  const current: CurrentRevision = last === null ? 'no_stream' : last.revision;
  if (!matchesExpectedRevision(expected, current)) {
    throw new WrongExpectedVersionError(streamName, expected, current);
  }
  return last === null
    ? { nextExpectedRevision: -1n, position: -1n }
    : { nextExpectedRevision: last.revision, position: last.position };
};

/** The position of the append's last event (see the module comment). */
const lastPositionOf = async (
  client: EventStoreDBClient,
  streamName: string,
  lastRevision: bigint,
  deadlineMs: number,
): Promise<bigint> => {
  const last = await eventAtRevision(client, streamName, lastRevision, deadlineMs);
  if (last === undefined) {
    throw new EventStoreError(
      `appended to ${streamName} but found no event at revision ${lastRevision}`,
    );
  }
  return last.position;
};

/** One append, bounded by `deadlineMs` (the client's own deadline too, for the Append path). */
const appendOnce = (
  client: EventStoreDBClient,
  streamName: string,
  data: EsdbEventData[],
  expected: ExpectedRevision,
  deadlineMs: number,
): Promise<EsdbAppendResult> =>
  new Promise<EsdbAppendResult>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new EsdbDeadlineError(`an append to ${streamName}`, deadlineMs)),
      deadlineMs,
    );
    client
      .appendToStream(streamName, data, {
        expectedRevision: toEsdbExpectedRevision(expected),
        deadline: deadlineMs,
      })
      .then(resolve, reject)
      .finally(() => clearTimeout(timer));
  });

const timedOut = (error: unknown): boolean =>
  error instanceof EsdbDeadlineError || error instanceof EsdbDeadlineExceededError;

export const appendEvents = async (
  client: EventStoreDBClient,
  streamName: string,
  events: readonly EventData[],
  options: AppendOptions = {},
  deadlineMs: number = DEFAULT_DEADLINE_MS,
): Promise<AppendResult> => {
  assertStreamName(streamName);
  const expected = expectedOf(options.expectedRevision);
  const data = toEsdbEvents(events);
  try {
    if (data.length === 0) return await appendNothing(client, streamName, expected, deadlineMs);
    let result: EsdbAppendResult;
    try {
      result = await appendOnce(client, streamName, data, expected, deadlineMs);
    } catch (error) {
      if (!timedOut(error)) throw error;
      result = await appendOnce(client, streamName, data, expected, deadlineMs);
    }
    return {
      nextExpectedRevision: result.nextExpectedRevision,
      position: await lastPositionOf(client, streamName, result.nextExpectedRevision, deadlineMs),
    };
  } catch (error) {
    throw toStoreError(error, { streamName, expected });
  }
};
