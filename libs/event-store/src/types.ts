/** The event log port, with EventStoreDB's semantics (see README: The port's semantics). */

export type ExpectedRevision = 'any' | 'no_stream' | 'stream_exists' | bigint;

export const ANY = 'any' as const;
export const NO_STREAM = 'no_stream' as const;
export const STREAM_EXISTS = 'stream_exists' as const;

export type CurrentRevision = bigint | 'no_stream';

export interface EventMetadata {
  tenantId: string;
  actor: string;
  timestamp: string;
  correlationId?: string;
  causationId?: string;
  /** Adapters and later layers may add fields (e.g. a hash chain); they are kept verbatim. */
  [key: string]: unknown;
}

/** An event to append; the store generates `id` when it is missing. */
export interface EventData<TType extends string = string, TData = unknown> {
  id?: string;
  type: TType;
  data: TData;
  metadata: EventMetadata;
}

export interface RecordedEvent<TType extends string = string, TData = unknown> {
  id: string;
  streamName: string;
  revision: bigint;
  /** Position of the event in the whole log ($all). Strictly increasing in commit order. */
  position: bigint;
  type: TType;
  data: TData;
  metadata: EventMetadata;
  created: Date;
}

export interface AppendOptions {
  expectedRevision?: ExpectedRevision;
}

export interface AppendResult {
  nextExpectedRevision: bigint;
  position: bigint;
}

export type Direction = 'forwards' | 'backwards';

export interface ReadStreamOptions {
  /** Inclusive; defaults to `'start'` forwards, `'end'` backwards. */
  fromRevision?: bigint | 'start' | 'end';
  direction?: Direction;
  maxCount?: number;
}

/** Server-side filter for `$all`: an event passes when it matches every part that is given. */
export interface AllFilter {
  streamPrefixes?: readonly string[];
  eventTypes?: readonly string[];
}

export interface ReadAllOptions {
  /** Inclusive; defaults to `'start'` forwards, `'end'` backwards. */
  fromPosition?: bigint | 'start' | 'end';
  direction?: Direction;
  maxCount?: number;
  filter?: AllFilter;
}

export interface SubscribeToAllOptions {
  /** Exclusive: the first event delivered is the one after this position. Defaults to `'start'`. */
  fromPosition?: bigint | 'start' | 'end';
  filter?: AllFilter;
  /** Emit a `checkpoint` every this many scanned events (default 32, as EventStoreDB). */
  checkpointInterval?: number;
}

export type SubscriptionMessage =
  | { kind: 'event'; event: RecordedEvent }
  /** Every event that existed at subscribe time has been delivered; from now on, live. */
  | { kind: 'caughtUp'; position: bigint | null }
  | { kind: 'checkpoint'; position: bigint };

export interface Subscription extends AsyncIterable<SubscriptionMessage> {
  unsubscribe(): Promise<void>;
}

/** An event's content alone, by revision: what a reader of bodies needs, without the envelope. */
export interface StreamData {
  revision: bigint;
  type: string;
  data: unknown;
}

export interface EventStore {
  readonly kind: string;

  appendToStream(
    streamName: string,
    events: readonly EventData[],
    options?: AppendOptions,
  ): Promise<AppendResult>;

  /** Throws `StreamNotFoundError` when the stream has no events. */
  readStream(streamName: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;

  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]>;

  /**
   * Optional: `maxCount` events of a stream from `fromRevision` on, forwards, as type and data only
   * (content opened as `readStream` opens it), where a store can read that cheaper than whole
   * events. Readers call `readStreamData(store, …)`, which falls back to `readStream`.
   */
  readStreamData?(
    streamName: string,
    options: { fromRevision: bigint; maxCount: number },
  ): Promise<StreamData[]>;

  subscribeToAll(options?: SubscribeToAllOptions): Subscription;

  headPosition(): Promise<bigint | null>;

  close(): Promise<void>;
}
