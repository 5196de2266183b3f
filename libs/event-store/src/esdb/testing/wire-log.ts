/**
 * The wire server's log: streams, `$all` and the append decision, as EventStoreDB documents them.
 * A test double's state (it never leaves the process that runs the server); the gRPC surface is
 * in `wire-server.ts`. Each behavioural rule names the EventStoreDB documentation page it follows.
 */

export interface WireEvent {
  stream: string;
  revision: bigint;
  id: string;
  type: string;
  contentType: string;
  data: Uint8Array;
  metadata: Uint8Array;
  /** .NET ticks since the Unix epoch, as the server stamps `created`. */
  created: string;
  position: bigint;
}

export type WireExpected =
  | { kind: 'any' }
  | { kind: 'no_stream' }
  | { kind: 'stream_exists' }
  | { kind: 'revision'; revision: bigint };

export interface ProposedEvent {
  id: string;
  type: string;
  contentType: string;
  data: Uint8Array;
  metadata: Uint8Array;
}

export type AppendOutcome =
  | { kind: 'written' | 'idempotent'; revision: bigint; position: bigint }
  | { kind: 'wrong'; current: bigint | null }
  | { kind: 'deleted' }
  | { kind: 'too_large'; maxAppendSize: number };

/** The revision a tombstone takes (EventNumber.DeletedStream = long.MaxValue). */
export const TOMBSTONE_REVISION = 2n ** 63n - 1n;

interface StreamState {
  events: WireEvent[];
  tombstoned: boolean;
}

const ticksNow = (): string => (BigInt(Date.now()) * 10_000n).toString();

export class WireLog {
  readonly all: WireEvent[] = [];
  private readonly streams = new Map<string, StreamState>();
  private readonly listeners = new Set<() => void>();
  // Positions are byte offsets in the log (https://developers.eventstore.com/clients/grpc/reading-events.html#reading-from-the-all-stream),
  // so they are sparse, never 0, 1, 2; a fresh database already holds the server's own records.
  private next = 1_024n;

  constructor(readonly maxAppendSize: number) {
    // A new database already has system events in $all (https://developers.eventstore.com/server/v24.10/streams.html#system-events-and-streams).
    this.write('$settings', [
      {
        id: '00000000-0000-4000-8000-000000000001',
        type: '$settings',
        contentType: 'application/json',
        data: Buffer.from('{}'),
        metadata: new Uint8Array(),
      },
    ]);
  }

  onAppend(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The stream's events; null when it never existed; 'deleted' once tombstoned. */
  stream(name: string): WireEvent[] | null | 'deleted' {
    const state = this.streams.get(name);
    if (state === undefined) return null;
    if (state.tombstoned) return 'deleted';
    return state.events.length === 0 ? null : state.events;
  }

  append(name: string, expected: WireExpected, proposed: readonly ProposedEvent[]): AppendOutcome {
    // The size limit counts the events' data and metadata (MaxAppendSize, 1 MiB by default:
    // https://developers.eventstore.com/server/v24.10/configuration.html#maxappendsize); nothing is written past it.
    const size = proposed.reduce((n, e) => n + e.data.length + e.metadata.length, 0);
    if (size > this.maxAppendSize) return { kind: 'too_large', maxAppendSize: this.maxAppendSize };
    const state = this.streams.get(name);
    // Appending to a tombstoned stream fails (https://developers.eventstore.com/clients/grpc/deleting-events.html#tombstoning).
    if (state?.tombstoned === true) return { kind: 'deleted' };
    const events = state?.events ?? [];
    const current = events.length === 0 ? null : events[events.length - 1].revision;
    const decision = this.decide(events, current, expected, proposed);
    if (decision !== 'write') return decision;
    if (proposed.length === 0) {
      return { kind: 'written', revision: current ?? -1n, position: this.lastPositionOf(events) };
    }
    const written = this.write(name, proposed);
    return { kind: 'written', revision: written.revision, position: written.position };
  }

  /**
   * Idempotence by event id (https://developers.eventstore.com/clients/grpc/appending-events.html#idempotence):
   * with an exact expected revision (or no_stream, revision -1) behind the stream's, the events
   * already stored right after it with the same ids in the same order make the append a no-op
   * answering the original result; a partial match is a conflict. With `any` (and
   * `stream_exists` on an existing stream) the first id is looked up in the stream, then the same.
   */
  private decide(
    events: readonly WireEvent[],
    current: bigint | null,
    expected: WireExpected,
    proposed: readonly ProposedEvent[],
  ): AppendOutcome | 'write' {
    const wrong: AppendOutcome = { kind: 'wrong', current };
    const matchFrom = (start: number): AppendOutcome => {
      for (let i = 0; i < proposed.length; i += 1) {
        if (events[start + i]?.id !== proposed[i].id) return wrong;
      }
      const last = events[start + proposed.length - 1];
      return { kind: 'idempotent', revision: last.revision, position: last.position };
    };
    if (expected.kind === 'any' || expected.kind === 'stream_exists') {
      // stream_exists fails on a missing stream (https://developers.eventstore.com/clients/grpc/appending-events.html#handling-concurrency).
      if (expected.kind === 'stream_exists' && current === null) return wrong;
      if (proposed.length === 0) return 'write';
      const at = events.findIndex((e) => e.id === proposed[0].id);
      return at < 0 ? 'write' : matchFrom(at);
    }
    const want = expected.kind === 'no_stream' ? -1n : expected.revision;
    const have = current ?? -1n;
    if (want === have) return 'write';
    if (want > have || proposed.length === 0) return wrong;
    return matchFrom(Number(want + 1n));
  }

  /** Hard delete (https://developers.eventstore.com/clients/grpc/deleting-events.html#tombstoning). */
  tombstone(name: string, expected: WireExpected): AppendOutcome {
    const state = this.streams.get(name);
    if (state?.tombstoned === true) return { kind: 'deleted' };
    const events = state?.events ?? [];
    const current = events.length === 0 ? null : events[events.length - 1].revision;
    const ok =
      expected.kind === 'any' ||
      (expected.kind === 'no_stream' && current === null) ||
      (expected.kind === 'stream_exists' && current !== null) ||
      (expected.kind === 'revision' && expected.revision === current);
    if (!ok) return { kind: 'wrong', current };
    const marker = this.record(name, TOMBSTONE_REVISION, {
      id: '00000000-0000-4000-8000-' + this.next.toString(16).padStart(12, '0').slice(-12),
      type: '$streamDeleted',
      contentType: 'application/json',
      data: new Uint8Array(),
      metadata: new Uint8Array(),
    });
    this.streams.set(name, { events: [], tombstoned: true });
    this.notify();
    return { kind: 'written', revision: TOMBSTONE_REVISION, position: marker.position };
  }

  private lastPositionOf(events: readonly WireEvent[]): bigint {
    return events.length === 0 ? -1n : events[events.length - 1].position;
  }

  private record(name: string, revision: bigint, e: ProposedEvent): WireEvent {
    const event: WireEvent = {
      ...e,
      stream: name,
      revision,
      created: ticksNow(),
      position: this.next,
    };
    // A record's size on disk, roughly: header, stream name, type, data and metadata.
    this.next += BigInt(96 + name.length + e.type.length + e.data.length + e.metadata.length);
    this.all.push(event);
    return event;
  }

  private write(name: string, proposed: readonly ProposedEvent[]): WireEvent {
    const state = this.streams.get(name) ?? { events: [], tombstoned: false };
    this.streams.set(name, state);
    let last: WireEvent | undefined;
    for (const e of proposed) {
      last = this.record(name, BigInt(state.events.length), e);
      state.events.push(last);
    }
    this.notify();
    return last as WireEvent;
  }

  private notify(): void {
    for (const listener of this.listeners) listener();
  }
}
