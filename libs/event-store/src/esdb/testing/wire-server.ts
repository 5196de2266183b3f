/**
 * A local EventStoreDB **wire server for tests**: a real gRPC server (`@grpc/grpc-js`) on a
 * loopback port, serving the service definitions and messages generated inside
 * `@eventstore/db-client`'s own package, so the real `EventStoreDBClient` talks to it over HTTP/2
 * with `esdb://127.0.0.1:<port>?tls=false`. It implements what the adapter and the key store call:
 * ServerFeatures (asked at connect), Streams.Append, Streams.BatchAppend, Streams.Read (a stream,
 * `$all`, catch-up subscriptions to `$all`) and Streams.Tombstone.
 *
 * A test double, not a product: it is not EventStoreDB, it never runs under `npm start`, and the
 * adapter is still to be run against a real server (docs/eventstoredb.md). Fault knobs (`faults`)
 * let tests drop connections, slow the server down and lose replies after applying an append.
 */
import {
  Metadata,
  Server,
  ServerCredentials,
  status,
  type ServerDuplexStream,
  type ServerWritableStream,
  type ServiceError,
} from '@grpc/grpc-js';
import { Any } from 'google-protobuf/google/protobuf/any_pb';
import { Empty as GoogleEmpty } from 'google-protobuf/google/protobuf/empty_pb';
import {
  SupportedMethod,
  SupportedMethods,
} from '@eventstore/db-client/generated/serverfeatures_pb';
import {
  ServerFeaturesService,
  type IServerFeaturesServer,
} from '@eventstore/db-client/generated/serverfeatures_grpc_pb';
import {
  AllStreamPosition,
  Empty,
  MaximumAppendSizeExceeded,
  StreamDeleted,
  StreamIdentifier,
  Timeout,
  UUID,
  WrongExpectedVersion,
} from '@eventstore/db-client/generated/shared_pb';
import { Status } from '@eventstore/db-client/generated/status_pb';
import {
  type AppendReq,
  AppendResp,
  type BatchAppendReq,
  BatchAppendResp,
  ReadReq,
  ReadResp,
  TombstoneResp,
} from '@eventstore/db-client/generated/streams_pb';
import {
  StreamsService,
  type IStreamsServer,
} from '@eventstore/db-client/generated/streams_grpc_pb';
import {
  type AppendOutcome,
  type ProposedEvent,
  type WireEvent,
  type WireExpected,
  WireLog,
} from './wire-log';

export interface WireServerOptions {
  /** MaxAppendSize; EventStoreDB's default is 1 MiB. */
  maxAppendSize?: number;
  /** Advertise BatchAppend in ServerFeatures (servers ≥ 21.10 do; the client then uses it). */
  batchAppend?: boolean;
}

export interface WireFaults {
  /** Every reply (and every subscription message) waits this long first. */
  delayMs: number;
  /** The next N appends are applied, then their reply waits `appliedReplyDelayMs` (or forever). */
  loseAppendReplies: number;
  appliedReplyDelayMs: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const text = (bytes: Uint8Array | string): string =>
  typeof bytes === 'string' ? bytes : Buffer.from(bytes).toString('utf8');

const bytesOf = (value: Uint8Array | string): Uint8Array =>
  typeof value === 'string' ? Buffer.from(value, 'base64') : value;

const uuidOf = (uuid: UUID | undefined): string => {
  if (uuid === undefined) return '';
  if (uuid.hasString()) return uuid.getString().toLowerCase();
  const s = uuid.getStructured();
  if (s === undefined) return '';
  const hex =
    BigInt.asUintN(64, BigInt(s.getMostSignificantBits())).toString(16).padStart(16, '0') +
    BigInt.asUintN(64, BigInt(s.getLeastSignificantBits())).toString(16).padStart(16, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
};

const identifier = (name: string): StreamIdentifier =>
  new StreamIdentifier().setStreamName(Buffer.from(name, 'utf8'));

/** A gRPC error the client turns into its typed errors: the `exception` trailer names it. */
const serviceError = (
  code: status,
  details: string,
  trailers: Record<string, string> = {},
): Partial<ServiceError> => {
  const metadata = new Metadata();
  for (const [k, v] of Object.entries(trailers)) metadata.set(k, v);
  return { code, details, metadata, message: details, name: 'Error' };
};

const expectedOfAppend = (o: AppendReq.Options): WireExpected => {
  if (o.hasRevision()) return { kind: 'revision', revision: BigInt(o.getRevision()) };
  if (o.hasNoStream()) return { kind: 'no_stream' };
  if (o.hasStreamExists()) return { kind: 'stream_exists' };
  return { kind: 'any' };
};

const expectedOfBatch = (o: BatchAppendReq.Options): WireExpected => {
  if (o.hasStreamPosition()) return { kind: 'revision', revision: BigInt(o.getStreamPosition()) };
  if (o.hasNoStream()) return { kind: 'no_stream' };
  if (o.hasStreamExists()) return { kind: 'stream_exists' };
  return { kind: 'any' };
};

const proposedOf = (
  m: AppendReq.ProposedMessage | BatchAppendReq.ProposedMessage,
): ProposedEvent => {
  const meta = m.getMetadataMap();
  return {
    id: uuidOf(m.getId()),
    type: meta.get('type') ?? '',
    contentType: meta.get('content-type') ?? 'application/octet-stream',
    data: bytesOf(m.getData()),
    metadata: bytesOf(m.getCustomMetadata()),
  };
};

const recordOf = (e: WireEvent): ReadResp.ReadEvent.RecordedEvent => {
  const r = new ReadResp.ReadEvent.RecordedEvent();
  r.setId(new UUID().setString(e.id));
  r.setStreamIdentifier(identifier(e.stream));
  r.setStreamRevision(e.revision.toString());
  // gRPC appends are never explicit transactions, so commit == prepare.
  r.setCommitPosition(e.position.toString());
  r.setPreparePosition(e.position.toString());
  r.getMetadataMap()
    .set('type', e.type)
    .set('content-type', e.contentType)
    .set('created', e.created);
  r.setData(e.data);
  r.setCustomMetadata(e.metadata);
  return r;
};

const eventResp = (e: WireEvent): ReadResp => {
  const read = new ReadResp.ReadEvent().setEvent(recordOf(e));
  read.setCommitPosition(e.position.toString());
  return new ReadResp().setEvent(read);
};

/** The `$all` filter of a read or subscription; null for NoFilter. */
interface WireFilter {
  accepts(e: WireEvent): boolean;
  /** Checkpoint after this many events scanned (multiplier × window). */
  checkpointEvery: number;
}

const filterOf = (options: ReadReq.Options): WireFilter | null => {
  if (!options.hasFilter()) return null;
  const f = options.getFilter() as ReadReq.Options.FilterOptions;
  const onStream = f.hasStreamIdentifier();
  const expr = (onStream ? f.getStreamIdentifier() : f.getEventType()) ?? undefined;
  const prefixes = expr?.getPrefixList() ?? [];
  const regex = expr?.getRegex() ? new RegExp(expr.getRegex()) : null;
  // Filters match a prefix or an (unanchored) regex on ONE field, the stream name or the event
  // type (https://developers.eventstore.com/clients/grpc/subscriptions.html#server-side-filtering).
  const accepts = (e: WireEvent) => {
    const field = onStream ? e.stream : e.type;
    if (prefixes.length > 0 && !prefixes.some((p) => field.startsWith(p))) return false;
    return regex === null || regex.test(field);
  };
  // A checkpoint every checkpointIntervalMultiplier × maxSearchWindow events read
  // (https://developers.eventstore.com/clients/grpc/subscriptions.html#checkpointing); window 32 by default.
  const window = f.hasMax() ? f.getMax() : 32;
  return {
    accepts,
    checkpointEvery: Math.max(1, window * Math.max(1, f.getCheckpointintervalmultiplier())),
  };
};

type Writable = ServerWritableStream<ReadReq, ReadResp>;

/** Writes with backpressure; false once the call is gone. */
const send = async (call: Writable, message: ReadResp): Promise<boolean> => {
  if (call.cancelled || call.destroyed) return false;
  if (!call.write(message)) {
    await new Promise<void>((resolve) => {
      const done = () => {
        call.off('drain', done);
        call.off('close', done);
        resolve();
      };
      call.on('drain', done);
      call.on('close', done);
    });
  }
  return !call.cancelled && !call.destroyed;
};

export class EventStoreWireServer {
  readonly log: WireLog;
  readonly faults: WireFaults = { delayMs: 0, loseAppendReplies: 0, appliedReplyDelayMs: -1 };
  private server: Server | null = null;
  private port = 0;
  private readonly batchAppend: boolean;
  private readonly live = new Set<{ cancel(): void }>();

  private constructor(options: WireServerOptions) {
    this.log = new WireLog(options.maxAppendSize ?? 1_048_576);
    this.batchAppend = options.batchAppend ?? true;
  }

  /** Starts on a free loopback port (or `port`, to come back where a dropped server was). */
  static async start(options: WireServerOptions = {}, port = 0): Promise<EventStoreWireServer> {
    const server = new EventStoreWireServer(options);
    await server.listen(port);
    return server;
  }

  get connectionString(): string {
    return `esdb://127.0.0.1:${this.port}?tls=false`;
  }

  /** Drops the server (every connection, every subscription) keeping its log. */
  async drop(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const sub of this.live) sub.cancel();
    this.live.clear();
    server?.forceShutdown();
    await sleep(10);
  }

  /** Comes back on the same port with the same log. */
  async restart(): Promise<void> {
    await this.listen(this.port);
  }

  async stop(): Promise<void> {
    await this.drop();
  }

  private async listen(port: number): Promise<void> {
    const server = new Server();
    server.addService(ServerFeaturesService, this.features());
    server.addService(StreamsService, this.streams());
    this.port = await new Promise<number>((resolve, reject) =>
      server.bindAsync(`127.0.0.1:${port}`, ServerCredentials.createInsecure(), (error, bound) =>
        error ? reject(error) : resolve(bound),
      ),
    );
    this.server = server;
  }

  private async delay(): Promise<void> {
    if (this.faults.delayMs > 0) await sleep(this.faults.delayMs);
  }

  /** After an append was applied: reply now, later, or never (a reply lost on the way). */
  private async afterApplied(): Promise<boolean> {
    if (this.faults.loseAppendReplies <= 0) return true;
    this.faults.loseAppendReplies -= 1;
    if (this.faults.appliedReplyDelayMs < 0) return false;
    await sleep(this.faults.appliedReplyDelayMs);
    return true;
  }

  private features(): IServerFeaturesServer {
    return {
      // The client asks which methods the server supports at connect
      // (https://developers.eventstore.com/clients/grpc/#connection-details); BatchAppend is 21.10+.
      getSupportedMethods: (_call, callback) => {
        const method = (service: string, name: string, features: string[] = []) =>
          new SupportedMethod()
            .setServiceName(service)
            .setMethodName(name)
            .setFeaturesList(features);
        const streams = 'event_store.client.streams.streams';
        const methods = [
          method(streams, 'read', ['position', 'events']),
          method(streams, 'append'),
          method(streams, 'tombstone'),
          ...(this.batchAppend ? [method(streams, 'batchappend')] : []),
          method('event_store.client.server_features.serverfeatures', 'getsupportedmethods'),
        ];
        callback(
          null,
          new SupportedMethods().setEventStoreServerVersion('24.10.0').setMethodsList(methods),
        );
      },
    };
  }

  private streams(): IStreamsServer {
    return {
      read: (call) => void this.read(call),
      append: (call, callback) => {
        let options: AppendReq.Options | undefined;
        const proposed: ProposedEvent[] = [];
        call.on('data', (req: AppendReq) => {
          if (req.hasOptions()) options = req.getOptions();
          const m = req.getProposedMessage();
          if (m !== undefined) proposed.push(proposedOf(m));
        });
        call.on('end', () => {
          void (async () => {
            await this.delay();
            if (options === undefined) {
              callback(serviceError(status.INVALID_ARGUMENT, 'no options'), null);
              return;
            }
            const name = text(options.getStreamIdentifier()?.getStreamName() ?? '');
            const expected = expectedOfAppend(options);
            const outcome = this.log.append(name, expected, proposed);
            if (outcome.kind === 'deleted') {
              callback(
                serviceError(status.FAILED_PRECONDITION, `Event stream '${name}' is deleted.`, {
                  exception: 'stream-deleted',
                  'stream-name': name,
                }),
                null,
              );
              return;
            }
            if (outcome.kind === 'too_large') {
              callback(
                serviceError(
                  status.INVALID_ARGUMENT,
                  `Maximum Append Size of ${outcome.maxAppendSize} Exceeded.`,
                  {
                    exception: 'maximum-append-size-exceeded',
                    'maximum-append-size': String(outcome.maxAppendSize),
                  },
                ),
                null,
              );
              return;
            }
            if (outcome.kind === 'wrong') {
              const w = new AppendResp.WrongExpectedVersion();
              if (outcome.current === null) w.setCurrentNoStream(new Empty());
              else w.setCurrentRevision(outcome.current.toString());
              if (expected.kind === 'revision') w.setExpectedRevision(expected.revision.toString());
              else if (expected.kind === 'no_stream') w.setExpectedNoStream(new Empty());
              else if (expected.kind === 'stream_exists') w.setExpectedStreamExists(new Empty());
              else w.setExpectedAny(new Empty());
              callback(null, new AppendResp().setWrongExpectedVersion(w));
              return;
            }
            if (!(await this.afterApplied())) return;
            const success = new AppendResp.Success()
              .setCurrentRevision(outcome.revision.toString())
              .setPosition(
                new AppendResp.Position()
                  .setCommitPosition(outcome.position.toString())
                  .setPreparePosition(outcome.position.toString()),
              );
            callback(null, new AppendResp().setSuccess(success));
          })();
        });
      },
      batchAppend: (call) => this.batch(call),
      tombstone: (call, callback) => {
        void (async () => {
          await this.delay();
          const options = call.request.getOptions();
          const name = text(options?.getStreamIdentifier()?.getStreamName() ?? '');
          let expected: WireExpected = { kind: 'any' };
          if (options?.hasRevision())
            expected = { kind: 'revision', revision: BigInt(options.getRevision()) };
          else if (options?.hasNoStream()) expected = { kind: 'no_stream' };
          else if (options?.hasStreamExists()) expected = { kind: 'stream_exists' };
          const outcome = this.log.tombstone(name, expected);
          if (outcome.kind === 'deleted') {
            // A second tombstone fails with StreamDeleted (https://developers.eventstore.com/clients/grpc/deleting-events.html#tombstoning).
            callback(
              serviceError(status.FAILED_PRECONDITION, `Event stream '${name}' is deleted.`, {
                exception: 'stream-deleted',
                'stream-name': name,
              }),
              null,
            );
            return;
          }
          if (outcome.kind === 'wrong') {
            callback(
              serviceError(status.FAILED_PRECONDITION, 'Wrong expected version.', {
                exception: 'wrong-expected-version',
                'stream-name': name,
                'expected-version':
                  expected.kind === 'revision' ? expected.revision.toString() : '-1',
                ...(outcome.current === null
                  ? {}
                  : { 'actual-version': outcome.current.toString() }),
              }),
              null,
            );
            return;
          }
          const position = outcome.kind === 'written' ? outcome.position : 0n;
          callback(
            null,
            new TombstoneResp().setPosition(
              new TombstoneResp.Position()
                .setCommitPosition(position.toString())
                .setPreparePosition(position.toString()),
            ),
          );
        })();
      },
      delete: (_call, callback) => {
        callback(
          serviceError(status.UNIMPLEMENTED, 'soft delete is not served by the wire server'),
          null,
        );
      },
    };
  }

  private batch(call: ServerDuplexStream<BatchAppendReq, BatchAppendResp>): void {
    const pending = new Map<
      string,
      { options?: BatchAppendReq.Options; events: ProposedEvent[] }
    >();
    call.on('data', (req: BatchAppendReq) => {
      const correlation = uuidOf(req.getCorrelationId());
      const entry = pending.get(correlation) ?? { events: [] };
      pending.set(correlation, entry);
      if (req.hasOptions()) entry.options = req.getOptions();
      for (const m of req.getProposedMessagesList()) entry.events.push(proposedOf(m));
      if (!req.getIsFinal()) return;
      pending.delete(correlation);
      void this.batchOne(call, req.getCorrelationId() as UUID, entry.options, entry.events);
    });
    call.on('end', () => call.end());
    call.on('error', () => undefined);
  }

  private async batchOne(
    call: ServerDuplexStream<BatchAppendReq, BatchAppendResp>,
    correlation: UUID,
    options: BatchAppendReq.Options | undefined,
    events: ProposedEvent[],
  ): Promise<void> {
    await this.delay();
    const name = text(options?.getStreamIdentifier()?.getStreamName() ?? '');
    const resp = new BatchAppendResp()
      .setCorrelationId(correlation)
      .setStreamIdentifier(identifier(name));
    const fail = (typeName: string, message: { serializeBinary(): Uint8Array }, text_: string) => {
      const any = new Any();
      any.pack(message.serializeBinary(), typeName);
      return resp.setError(new Status().setMessage(text_).setDetails(any));
    };
    const deadline = options?.getDeadline()?.toDate();
    let outcome: AppendOutcome;
    if (options === undefined) {
      outcome = { kind: 'wrong', current: null };
    } else if (deadline !== undefined && deadline.getTime() < Date.now()) {
      // An append whose deadline passed before it was processed is not written (Timeout).
      if (!call.cancelled) call.write(fail('event_store.client.Timeout', new Timeout(), 'Timeout'));
      return;
    } else {
      outcome = this.log.append(name, expectedOfBatch(options), events);
    }
    const expected = options === undefined ? ({ kind: 'any' } as const) : expectedOfBatch(options);
    if (outcome.kind === 'deleted') {
      fail(
        'event_store.client.StreamDeleted',
        new StreamDeleted().setStreamIdentifier(identifier(name)),
        'deleted',
      );
    } else if (outcome.kind === 'too_large') {
      fail(
        'event_store.client.MaximumAppendSizeExceeded',
        new MaximumAppendSizeExceeded().setMaxappendsize(outcome.maxAppendSize),
        `Maximum Append Size of ${outcome.maxAppendSize} Exceeded.`,
      );
    } else if (outcome.kind === 'wrong') {
      const w = new WrongExpectedVersion();
      if (outcome.current === null) w.setCurrentNoStream(new GoogleEmpty());
      else w.setCurrentStreamRevision(outcome.current.toString());
      if (expected.kind === 'revision') w.setExpectedStreamPosition(expected.revision.toString());
      else if (expected.kind === 'no_stream') w.setExpectedNoStream(new GoogleEmpty());
      else if (expected.kind === 'stream_exists') w.setExpectedStreamExists(new GoogleEmpty());
      else w.setExpectedAny(new GoogleEmpty());
      fail('event_store.client.WrongExpectedVersion', w, 'Wrong expected version.');
    } else {
      if (!(await this.afterApplied())) return;
      resp.setSuccess(
        new BatchAppendResp.Success()
          .setCurrentRevision(outcome.revision.toString())
          .setPosition(
            new AllStreamPosition()
              .setCommitPosition(outcome.position.toString())
              .setPreparePosition(outcome.position.toString()),
          ),
      );
    }
    if (!call.cancelled && !call.destroyed) call.write(resp);
  }

  private async read(call: Writable): Promise<void> {
    const options = call.request.getOptions();
    if (options === undefined) {
      call.emit('error', serviceError(status.INVALID_ARGUMENT, 'no options'));
      return;
    }
    try {
      await this.delay();
      if (options.hasSubscription()) {
        if (!options.hasAll()) {
          call.emit(
            'error',
            serviceError(status.UNIMPLEMENTED, 'stream subscriptions are not served'),
          );
          return;
        }
        await this.subscribe(call, options);
        return;
      }
      const count = options.hasCount() ? BigInt(options.getCount()) : 2n ** 63n;
      const backwards = options.getReadDirection() === ReadReq.Options.ReadDirection.BACKWARDS;
      const events = options.hasStream()
        ? this.readStream(call, options.getStream() as ReadReq.Options.StreamOptions, backwards)
        : this.readAll(
            options.getAll() as ReadReq.Options.AllOptions,
            backwards,
            filterOf(options),
          );
      if (events === null) return;
      let sent = 0n;
      for (const e of events) {
        if (sent >= count) break;
        if (!(await send(call, eventResp(e)))) return;
        sent += 1n;
      }
      call.end();
    } catch (error) {
      call.emit('error', serviceError(status.INTERNAL, String(error)));
    }
  }

  /** Reading a stream (https://developers.eventstore.com/clients/grpc/reading-events.html#reading-from-a-stream). */
  private readStream(
    call: Writable,
    o: ReadReq.Options.StreamOptions,
    backwards: boolean,
  ): Iterable<WireEvent> | null {
    const name = text(o.getStreamIdentifier()?.getStreamName() ?? '');
    const events = this.log.stream(name);
    if (events === 'deleted') {
      // A tombstoned stream's read fails with StreamDeleted (https://developers.eventstore.com/clients/grpc/deleting-events.html#tombstoning).
      call.emit(
        'error',
        serviceError(status.FAILED_PRECONDITION, `Event stream '${name}' is deleted.`, {
          exception: 'stream-deleted',
          'stream-name': name,
        }),
      );
      return null;
    }
    if (events === null) {
      // A missing stream answers StreamNotFound (https://developers.eventstore.com/clients/grpc/reading-events.html#checking-if-the-stream-exists).
      void send(
        call,
        new ReadResp().setStreamNotFound(
          new ReadResp.StreamNotFound().setStreamIdentifier(identifier(name)),
        ),
      ).then(() => call.end());
      return null;
    }
    const last = events.length - 1;
    // Both directions include the revision they start from; END backwards is the last event.
    let from: number;
    if (o.hasRevision())
      from = Number(
        BigInt.asUintN(64, BigInt(o.getRevision())) > BigInt(last)
          ? BigInt(last + 1)
          : BigInt(o.getRevision()),
      );
    else if (o.hasEnd()) from = backwards ? last : last + 1;
    else from = 0;
    if (backwards) return events.slice(0, Math.min(from, last) + 1).reverse();
    return events.slice(from);
  }

  /**
   * `$all` (https://developers.eventstore.com/clients/grpc/reading-events.html#reading-from-the-all-stream):
   * forwards from a position includes it; backwards from a position starts before it (the position
   * is a cursor between records); system events are there unless filtered out.
   */
  private readAll(
    o: ReadReq.Options.AllOptions,
    backwards: boolean,
    filter: WireFilter | null,
  ): WireEvent[] {
    const all = this.log.all;
    const keep = (e: WireEvent) => filter === null || filter.accepts(e);
    if (o.hasPosition()) {
      const p = BigInt((o.getPosition() as ReadReq.Options.Position).getCommitPosition());
      return backwards
        ? all.filter((e) => e.position < p && keep(e)).reverse()
        : all.filter((e) => e.position >= p && keep(e));
    }
    if (o.hasEnd()) return backwards ? all.filter(keep).reverse() : [];
    return backwards ? [] : all.filter(keep);
  }

  /**
   * Catch-up subscription to `$all` (https://developers.eventstore.com/clients/grpc/subscriptions.html):
   * a confirmation first, events after the exclusive start position, checkpoints for filtered
   * subscriptions, CaughtUp once the log's end is reached (23.10+), then live events.
   */
  private async subscribe(call: Writable, options: ReadReq.Options): Promise<void> {
    const o = options.getAll() as ReadReq.Options.AllOptions;
    const filter = filterOf(options);
    const all = this.log.all;
    let cursor = 0;
    if (o.hasEnd()) cursor = all.length;
    else if (o.hasPosition()) {
      const p = BigInt((o.getPosition() as ReadReq.Options.Position).getCommitPosition());
      cursor = all.findIndex((e) => e.position > p);
      if (cursor < 0) cursor = all.length;
    }
    let scanned = 0;
    let caughtUp = false;
    let wake: (() => void) | null = null;
    let ended = false;
    const entry = {
      cancel: () => {
        ended = true;
        wake?.();
        if (!call.destroyed) call.destroy(new Error('server dropped'));
      },
    };
    this.live.add(entry);
    const off = this.log.onAppend(() => wake?.());
    const finish = () => {
      ended = true;
      wake?.();
    };
    call.on('cancelled', finish);
    call.on('close', finish);
    try {
      const confirmation = new ReadResp.SubscriptionConfirmation().setSubscriptionId(
        `wire-${Math.random().toString(16).slice(2)}`,
      );
      if (!(await send(call, new ReadResp().setConfirmation(confirmation)))) return;
      while (!ended) {
        while (cursor < all.length && !ended) {
          const e = all[cursor];
          cursor += 1;
          if (this.faults.delayMs > 0) await this.delay();
          if (filter === null || filter.accepts(e)) {
            if (!(await send(call, eventResp(e)))) return;
          }
          if (filter !== null) {
            scanned += 1;
            if (scanned % filter.checkpointEvery === 0) {
              const checkpoint = new ReadResp.Checkpoint()
                .setCommitPosition(e.position.toString())
                .setPreparePosition(e.position.toString());
              if (!(await send(call, new ReadResp().setCheckpoint(checkpoint)))) return;
            }
          }
        }
        if (!caughtUp && !ended) {
          caughtUp = true;
          if (!(await send(call, new ReadResp().setCaughtUp(new ReadResp.CaughtUp())))) return;
        }
        if (cursor >= all.length && !ended) {
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
          wake = null;
        }
      }
    } finally {
      off();
      this.live.delete(entry);
    }
  }
}
