/** `appendToStream` on EventStoreDB (position read-back, deadline retry: README). */
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
