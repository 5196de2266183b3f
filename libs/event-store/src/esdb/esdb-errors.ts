/** Client errors → the port's; anything unrecognised becomes StoreUnavailableError. */
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

export class EsdbDeadlineError extends Error {
  constructor(
    readonly operation: string,
    readonly deadlineMs: number,
  ) {
    super(`EventStoreDB did not answer ${operation} within its ${deadlineMs} ms deadline`);
    this.name = 'EsdbDeadlineError';
  }
}

export const DEFAULT_DEADLINE_MS = 10_000;
