/**
 * A stand-in for `EventStoreDBClient` covering `readAll`, `readStream` and `appendToStream`, built
 * on the client's real ReadStream class and wire messages (see grpc-fixtures). It models what we
 * believe the server does; its purpose is to test the adapter's own logic (paging, client-side
 * filtering, inclusive bounds, position read-back), not to stand in for a live EventStoreDB.
 */
import {
  type AppendExpectedRevision,
  type AppendResult,
  type EventData as EsdbEventData,
  type EventStoreDBClient,
  type ReadAllOptions,
  type ReadStreamOptions,
  type SubscribeToAllOptions,
  WrongExpectedVersionError as EsdbWrongExpectedVersionError,
} from '@eventstore/db-client';
import {
  clientRead,
  clientSubscription,
  eventResp,
  fakeCall,
  type FakeCall,
  type RecordSpec,
  streamNotFoundResp,
} from './grpc-fixtures';

export interface FakeClientOptions {
  /**
   * Whether a backwards `$all` read from a position includes the event at it. We believe the
   * server excludes it; the adapter must give the same answer either way.
   */
  backwardsInclusive?: boolean;
}

export interface FakeClient {
  client: EventStoreDBClient;
  log: RecordSpec[];
  /** Calls made, for assertions: method and options. */
  calls: { method: string; options: unknown }[];
  /** The fake gRPC calls behind `subscribeToAll`, in order: write server responses to them. */
  subscriptions: FakeCall[];
  /** How many reads the adapter cancelled (it only cancels reads it stops early). */
  cancelled: () => number;
}

const MAX = BigInt(Number.MAX_SAFE_INTEGER);

const sliceAll = (
  log: readonly RecordSpec[],
  options: ReadAllOptions,
  inclusive: boolean,
): RecordSpec[] => {
  const from = options.fromPosition ?? 'start';
  const max = Number(options.maxCount ?? MAX);
  if (options.direction === 'backwards') {
    const kept =
      from === 'end'
        ? log
        : from === 'start'
          ? []
          : log.filter((r) => (inclusive ? r.position <= from.commit : r.position < from.commit));
    return [...kept].reverse().slice(0, max);
  }
  const kept =
    from === 'start' ? log : from === 'end' ? [] : log.filter((r) => r.position >= from.commit);
  return kept.slice(0, max);
};

const sliceStream = (records: readonly RecordSpec[], options: ReadStreamOptions): RecordSpec[] => {
  const from = options.fromRevision ?? 'start';
  const max = Number(options.maxCount ?? MAX);
  if (options.direction === 'backwards') {
    const kept =
      from === 'end' ? records : from === 'start' ? [] : records.filter((r) => r.revision <= from);
    return [...kept].reverse().slice(0, max);
  }
  const kept =
    from === 'start' ? records : from === 'end' ? [] : records.filter((r) => r.revision >= from);
  return kept.slice(0, max);
};

const matches = (expected: AppendExpectedRevision, current: bigint): boolean =>
  expected === 'any' ||
  (expected === 'no_stream' && current === -1n) ||
  (expected === 'stream_exists' && current >= 0n) ||
  expected === current;

export const createFakeClient = (
  log: RecordSpec[] = [],
  { backwardsInclusive = false }: FakeClientOptions = {},
): FakeClient => {
  const calls: FakeClient['calls'] = [];
  const subscriptions: FakeCall[] = [];
  let cancelled = 0;

  const serve = (responses: unknown[]) => {
    const call = fakeCall();
    for (const response of responses) call.stream.write(response);
    // The server's status (the call's end) arrives after its last message, on a later turn.
    setImmediate(() => {
      if (!call.stream.destroyed) call.stream.end();
    });
    const read = clientRead(call);
    const cancel = read.cancel.bind(read);
    read.cancel = async () => {
      cancelled++;
      await cancel();
    };
    return read;
  };

  const appendToStream = async (
    streamName: string,
    events: EsdbEventData | EsdbEventData[],
    options: { expectedRevision?: AppendExpectedRevision } = {},
  ): Promise<AppendResult> => {
    calls.push({ method: 'appendToStream', options });
    const batch = Array.isArray(events) ? events : [events];
    const existing = log.filter((r) => r.stream === streamName);
    const current = existing.length === 0 ? -1n : existing[existing.length - 1].revision;
    const expected = options.expectedRevision ?? 'any';
    if (!matches(expected, current)) {
      throw new EsdbWrongExpectedVersionError(undefined, {
        streamName,
        expected,
        current: current === -1n ? 'no_stream' : current,
      });
    }
    let position = log.length === 0 ? 100n : log[log.length - 1].position + 100n;
    let revision = current;
    for (const event of batch) {
      revision += 1n;
      position += 100n;
      log.push({
        id: event.id,
        stream: streamName,
        revision,
        position,
        type: event.type,
        data: JSON.stringify(event.data),
        metadata: JSON.stringify(event.metadata),
      });
    }
    // Deliberately the FIRST event's position: the adapter must not trust it (see esdb-append).
    const first = position - BigInt(batch.length - 1) * 100n;
    return {
      success: true,
      nextExpectedRevision: revision,
      position: { commit: first, prepare: first },
    };
  };

  const client = {
    readAll: (options: ReadAllOptions = {}) => {
      calls.push({ method: 'readAll', options });
      return serve(sliceAll(log, options, backwardsInclusive).map(eventResp));
    },
    readStream: (streamName: string, options: ReadStreamOptions = {}) => {
      calls.push({ method: 'readStream', options });
      const records = log.filter((r) => r.stream === streamName);
      if (records.length === 0) return serve([streamNotFoundResp(streamName)]);
      return serve(sliceStream(records, options).map(eventResp));
    },
    appendToStream,
    subscribeToAll: (options: SubscribeToAllOptions = {}) => {
      calls.push({ method: 'subscribeToAll', options });
      const call = fakeCall();
      subscriptions.push(call);
      return clientSubscription(call, options.filter?.checkpointReached);
    },
  };

  return {
    client: client as unknown as EventStoreDBClient,
    log,
    calls,
    subscriptions,
    cancelled: () => cancelled,
  };
};
