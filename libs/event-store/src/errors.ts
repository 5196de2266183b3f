import { type CurrentRevision, type ExpectedRevision } from './types';

/** Base class so callers can tell store errors from everything else. */
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

/** A stream name that cannot be used (empty, reserved, or not tenant-scoped). */
export class InvalidStreamNameError extends EventStoreError {}

/** An event that cannot be stored: an id that is not a UUID, an empty type, or data that is not JSON. */
export class InvalidEventError extends EventStoreError {}

/** The store is closed or could not perform the operation for a reason outside the rules above. */
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
