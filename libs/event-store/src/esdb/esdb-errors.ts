/**
 * Client errors → the port's errors. Pure.
 * - the client's WrongExpectedVersionError → ours, with the revision WE asked for as `expected`
 *   and the server's current revision (`'no_stream'` when it reports none) as `actual`;
 * - the client's StreamNotFoundError → ours;
 * - the client's MaxAppendSizeExceededError → AppendTooLargeError (an InvalidEventError: retrying
 *   the same append cannot succeed);
 * - errors that are already the port's pass through;
 * - anything else (unavailable, timeouts, access denied, append too large, ...) →
 *   StoreUnavailableError, keeping the client's message.
 */
import {
  MaxAppendSizeExceededError as EsdbMaxAppendSizeExceededError,
  StreamNotFoundError as EsdbStreamNotFoundError,
  WrongExpectedVersionError as EsdbWrongExpectedVersionError,
} from '@eventstore/db-client';
import {
  AppendTooLargeError,
  EventStoreError,
  StoreUnavailableError,
  StreamNotFoundError,
  WrongExpectedVersionError,
} from '../errors';
import { type CurrentRevision, type ExpectedRevision } from '../types';

export interface ErrorContext {
  streamName?: string;
  expected?: ExpectedRevision;
}

const currentRevision = (actual: unknown): CurrentRevision =>
  typeof actual === 'bigint' ? actual : 'no_stream';

const describe = (error: unknown): string =>
  error instanceof Error ? `${error.name}: ${error.message}` : String(error);

export const toStoreError = (error: unknown, context: ErrorContext = {}): Error => {
  if (error instanceof EventStoreError) return error;
  if (error instanceof EsdbWrongExpectedVersionError) {
    return new WrongExpectedVersionError(
      context.streamName ?? error.streamName,
      context.expected ?? error.expectedVersion,
      currentRevision(error.actualVersion),
    );
  }
  if (error instanceof EsdbMaxAppendSizeExceededError) {
    return new AppendTooLargeError(context.streamName ?? '', error.maxAppendSize);
  }
  if (error instanceof EsdbStreamNotFoundError) {
    return new StreamNotFoundError(context.streamName ?? error.streamName);
  }
  const mapped = new StoreUnavailableError(`EventStoreDB: ${describe(error)}`);
  return Object.assign(mapped, { cause: error });
};

/** No answer within the operation's deadline (the call is cancelled; an append may have been applied). */
export class EsdbDeadlineError extends Error {
  constructor(
    readonly operation: string,
    readonly deadlineMs: number,
  ) {
    super(`EventStoreDB did not answer ${operation} within its ${deadlineMs} ms deadline`);
    this.name = 'EsdbDeadlineError';
  }
}

/** The default deadline of every call (the client's own default for unary calls). */
export const DEFAULT_DEADLINE_MS = 10_000;
