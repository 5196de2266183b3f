/**
 * Test fixtures: the gRPC messages an EventStoreDB server sends, built with the client's own
 * generated protobuf classes, and the client's own Subscription / ReadStream classes fed from a
 * fake gRPC call. This lets the adapter's mapping run through the real client code paths without a
 * server. Only the wire messages are invented here; their shapes come from the client's protos.
 */
import { PassThrough } from 'node:stream';
import { type AllStreamSubscription, type Filter } from '@eventstore/db-client';
import { convertGrpcEvent } from '@eventstore/db-client/dist/utils/convertGrpcEvent';
import { createUUID } from '@eventstore/db-client/dist/utils/grpcUUID';
import { Subscription as ClientSubscription } from '@eventstore/db-client/dist/streams/utils/Subscription';
import { ReadStream as ClientReadStream } from '@eventstore/db-client/dist/streams/utils/ReadStream';
import { StreamIdentifier } from '@eventstore/db-client/generated/shared_pb';
import { ReadResp } from '@eventstore/db-client/generated/streams_pb';
import { type StreamingRead, type AllStreamResolvedEvent } from '@eventstore/db-client';

/** .NET ticks (100 ns) since the Unix epoch, as the server stamps `created`. */
export const ticksOf = (date: Date): string => (BigInt(date.getTime()) * 10_000n).toString();

export interface RecordSpec {
  id: string;
  stream: string;
  revision: bigint;
  position: bigint;
  type: string;
  /** Raw bytes as the server stores them (the client JSON.stringify-s JSON events). */
  data: string | Uint8Array;
  metadata?: string | Uint8Array;
  contentType?: 'application/json' | 'application/octet-stream';
  created?: Date;
}

const bytes = (value: string | Uint8Array): Uint8Array =>
  typeof value === 'string' ? Buffer.from(value, 'utf8') : value;

export const grpcRecord = (spec: RecordSpec): ReadResp.ReadEvent.RecordedEvent => {
  const record = new ReadResp.ReadEvent.RecordedEvent();
  record.setId(createUUID(spec.id));
  const stream = new StreamIdentifier();
  stream.setStreamName(Buffer.from(spec.stream, 'utf8'));
  record.setStreamIdentifier(stream);
  record.setStreamRevision(spec.revision.toString());
  record.setCommitPosition(spec.position.toString());
  record.setPreparePosition(spec.position.toString());
  record
    .getMetadataMap()
    .set('type', spec.type)
    .set('content-type', spec.contentType ?? 'application/json')
    .set('created', ticksOf(spec.created ?? new Date('2026-01-01T00:00:00.000Z')));
  record.setData(bytes(spec.data));
  if (spec.metadata !== undefined) record.setCustomMetadata(bytes(spec.metadata));
  return record;
};

export const eventResp = (spec: RecordSpec): ReadResp => {
  const read = new ReadResp.ReadEvent();
  read.setEvent(grpcRecord(spec));
  read.setCommitPosition(spec.position.toString());
  return new ReadResp().setEvent(read);
};

export const confirmationResp = (): ReadResp =>
  new ReadResp().setConfirmation(new ReadResp.SubscriptionConfirmation().setSubscriptionId('sub'));

export const caughtUpResp = (): ReadResp => new ReadResp().setCaughtUp(new ReadResp.CaughtUp());

export const fellBehindResp = (): ReadResp =>
  new ReadResp().setFellBehind(new ReadResp.FellBehind());

export const checkpointResp = (position: bigint): ReadResp =>
  new ReadResp().setCheckpoint(
    new ReadResp.Checkpoint()
      .setCommitPosition(position.toString())
      .setPreparePosition(position.toString()),
  );

export const streamNotFoundResp = (stream: string): ReadResp => {
  const identifier = new StreamIdentifier();
  identifier.setStreamName(Buffer.from(stream, 'utf8'));
  return new ReadResp().setStreamNotFound(
    new ReadResp.StreamNotFound().setStreamIdentifier(identifier),
  );
};

/** A stand-in for the gRPC server-streaming call: write responses, end, or fail it. */
export interface FakeCall {
  stream: PassThrough & { cancel(): void };
  cancelled: () => boolean;
}

export const fakeCall = (): FakeCall => {
  let cancelled = false;
  const stream = Object.assign(new PassThrough({ objectMode: true }), {
    cancel: () => {
      cancelled = true;
      stream.end();
    },
  });
  return { stream, cancelled: () => cancelled };
};

/** The client's real `$all` subscription class, reading from a fake call. */
export const clientSubscription = (
  call: FakeCall,
  checkpointReached?: Filter['checkpointReached'],
): AllStreamSubscription =>
  new ClientSubscription(
    // The client types the call as grpc's ClientReadableStream; a PassThrough plays its part.
    async () => call.stream as unknown as never,
    convertGrpcEvent,
    {},
    checkpointReached,
  ) as unknown as AllStreamSubscription;

/** The client's real streaming read class, reading from a fake call. */
export const clientRead = (call: FakeCall): StreamingRead<AllStreamResolvedEvent> =>
  new ClientReadStream(
    async () => call.stream as unknown as never,
    convertGrpcEvent,
    {},
  ) as unknown as StreamingRead<AllStreamResolvedEvent>;
