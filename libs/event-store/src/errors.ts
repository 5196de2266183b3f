import { type CurrentRevision, type ExpectedRevision } from './types';

export class EventStoreError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** The stream was not at the revision the writer expected. Nothing was written. */
export class WrongExpectedVersionError extends EventStoreError {
  constructor(
    readonly streamName: string,
    readonly expected: ExpectedRevision,
    readonly actual: CurrentRevision,
  ) {
    super(
      `wrong expected version on stream ${streamName}: expected ${String(expected)}, actual ${String(actual)}`,
    );
  }
}

export class StreamNotFoundError extends EventStoreError {
  constructor(readonly streamName: string) {
    super(`stream not found: ${streamName}`);
  }
}

export class InvalidStreamNameError extends EventStoreError {}

export class InvalidEventError extends EventStoreError {}

export class StoreUnavailableError extends EventStoreError {}

/** The disk or database is full (SQLite's SQLITE_FULL): retrying only helps once space is freed. */
export class StoreFullError extends StoreUnavailableError {}

/** The append is larger than the store accepts in one append (EventStoreDB's MaxAppendSize). Nothing was written. */
export class AppendTooLargeError extends InvalidEventError {
  constructor(
    readonly streamName: string,
    readonly maxAppendSize: number,
  ) {
    super(
      `the append to ${streamName} is larger than the store's limit of ${maxAppendSize} bytes per append; nothing was written`,
    );
  }
}
