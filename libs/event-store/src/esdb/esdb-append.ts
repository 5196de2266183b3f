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
 * An empty append writes nothing; the server would not report a usable revision for a missing
 * stream, so it is answered here: check the expected revision against the stream's last event,
 * then report where the stream is (-1 / -1 when it does not exist), as the SQLite store does.
 */
import { type EventStoreDBClient } from '@eventstore/db-client';
import { EventStoreError, WrongExpectedVersionError } from '../errors';
import { matchesExpectedRevision } from '../expected-revision';
import {
  type AppendOptions,
  type AppendResult,
  type CurrentRevision,
  type EventData,
  type ExpectedRevision,
} from '../types';
import { toStoreError } from './esdb-errors';
import { toEsdbEvents } from './esdb-events';
import { assertStreamName, expectedOf, toEsdbExpectedRevision } from './esdb-mapping';
import { eventAtRevision, lastEventOf } from './esdb-read';

const appendNothing = async (
  client: EventStoreDBClient,
  streamName: string,
  expected: ExpectedRevision,
): Promise<AppendResult> => {
  const last = await lastEventOf(client, streamName);
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
): Promise<bigint> => {
  const last = await eventAtRevision(client, streamName, lastRevision);
  if (last === undefined) {
    throw new EventStoreError(
      `appended to ${streamName} but found no event at revision ${lastRevision}`,
    );
  }
  return last.position;
};

export const appendEvents = async (
  client: EventStoreDBClient,
  streamName: string,
  events: readonly EventData[],
  options: AppendOptions = {},
): Promise<AppendResult> => {
  assertStreamName(streamName);
  const expected = expectedOf(options.expectedRevision);
  const data = toEsdbEvents(events);
  try {
    if (data.length === 0) return await appendNothing(client, streamName, expected);
    const result = await client.appendToStream(streamName, data, {
      expectedRevision: toEsdbExpectedRevision(expected),
    });
    return {
      nextExpectedRevision: result.nextExpectedRevision,
      position: await lastPositionOf(client, streamName, result.nextExpectedRevision),
    };
  } catch (error) {
    throw toStoreError(error, { streamName, expected });
  }
};
