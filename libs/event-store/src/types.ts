/**
 * The event log port. Semantics follow EventStoreDB so the SQLite store and the EventStoreDB
 * adapter mean the same thing:
 * - stream revisions count from 0; `expectedRevision` is `'any' | 'no_stream' | 'stream_exists' | bigint`;
 * - the global position orders every event in the log (`$all`); positions are bigints;
 * - several events in one append are written atomically or not at all;
 * - re-appending events whose ids are already stored is idempotent under EventStoreDB's rules.
 */

/** What the writer expects the stream's current revision to be. */
export type ExpectedRevision = 'any' | 'no_stream' | 'stream_exists' | bigint;

export const ANY = 'any' as const;
export const NO_STREAM = 'no_stream' as const;
export const STREAM_EXISTS = 'stream_exists' as const;

/** The state of a stream as a store sees it before an append: its last revision, or none. */
export type CurrentRevision = bigint | 'no_stream';

/** Metadata every Arbor event carries. Adapters store it verbatim (JSON). */
export interface EventMetadata {
  tenantId: string;
  actor: string;
  /** ISO-8601 time the event was produced. */
  timestamp: string;
  correlationId?: string;
  causationId?: string;
  /** Adapters and later layers may add fields (e.g. a hash chain); they are kept verbatim. */
  [key: string]: unknown;
}

/** An event to append. `id` is a UUID; the store generates one when it is missing. */
export interface EventData<TType extends string = string, TData = unknown> {
  id?: string;
  type: TType;
  data: TData;
  metadata: EventMetadata;
}

/** An event as read back from the log. */
export interface RecordedEvent<TType extends string = string, TData = unknown> {
  id: string;
  streamName: string;
  /** Position of the event within its stream, from 0. */
  revision: bigint;
  /** Position of the event in the whole log ($all). Strictly increasing in commit order. */
  position: bigint;
  type: TType;
  data: TData;
  metadata: EventMetadata;
  /** When the store recorded it. */
  created: Date;
}

export interface AppendOptions {
  /** Defaults to `'any'`. */
  expectedRevision?: ExpectedRevision;
}

export interface AppendResult {
  /** The stream's revision after the append: the expected revision for the next one. */
  nextExpectedRevision: bigint;
  /** Global position of the last event of this append. */
  position: bigint;
}

export type Direction = 'forwards' | 'backwards';

export interface ReadStreamOptions {
  /** Inclusive. Defaults to `'start'` forwards and `'end'` backwards. */
  fromRevision?: bigint | 'start' | 'end';
  direction?: Direction;
  /** Defaults to unbounded. */
  maxCount?: number;
}

/** Server-side filter for `$all`: an event passes when it matches every part that is given. */
export interface AllFilter {
  /** The stream name starts with one of these. */
  streamPrefixes?: readonly string[];
  /** The event type is one of these. */
  eventTypes?: readonly string[];
}

export interface ReadAllOptions {
  /** Inclusive. Defaults to `'start'` forwards and `'end'` backwards. */
  fromPosition?: bigint | 'start' | 'end';
  direction?: Direction;
  maxCount?: number;
  filter?: AllFilter;
}

export interface SubscribeToAllOptions {
  /** Exclusive: the first event delivered is the one after this position. Defaults to `'start'`. */
  fromPosition?: bigint | 'start' | 'end';
  filter?: AllFilter;
  /**
   * How often (in events scanned, matching or not) a `checkpoint` message is emitted so a filtered
   * subscriber can persist progress even when nothing matches. Defaults to 32 (as EventStoreDB).
   */
  checkpointInterval?: number;
}

/** What a subscription delivers, in order. */
export type SubscriptionMessage =
  | { kind: 'event'; event: RecordedEvent }
  /** Every event that existed at subscribe time has been delivered; from now on, live. */
  | { kind: 'caughtUp'; position: bigint | null }
  /** Everything up to `position` has been scanned; safe to persist as the resume point. */
  | { kind: 'checkpoint'; position: bigint };

export interface Subscription extends AsyncIterable<SubscriptionMessage> {
  /** Stops the subscription; a pending iteration ends. Idempotent. */
  unsubscribe(): Promise<void>;
}

export interface EventStore {
  /** Which adapter this is, for `/health` and logs (`sqlite`, `eventstoredb`). */
  readonly kind: string;

  appendToStream(
    streamName: string,
    events: readonly EventData[],
    options?: AppendOptions,
  ): Promise<AppendResult>;

  /** Throws `StreamNotFoundError` when the stream has no events. */
  readStream(streamName: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;

  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]>;

  subscribeToAll(options?: SubscribeToAllOptions): Subscription;

  /** Global position of the last event in the log, or null when it is empty. */
  headPosition(): Promise<bigint | null>;

  close(): Promise<void>;
}
