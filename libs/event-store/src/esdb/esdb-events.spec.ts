import { randomUUID } from 'node:crypto';
import { convertGrpcRecord } from '@eventstore/db-client/dist/utils/convertGrpcEvent';
import { type RecordedEvent as EsdbRecordedEvent } from '@eventstore/db-client';
import fc from 'fast-check';
import { EventStoreError, InvalidEventError } from '../errors';
import { type EventData, type EventMetadata } from '../types';
import { toEsdbEventData, toEsdbEvents, toRecordedEvent } from './esdb-events';
import { grpcRecord, type RecordSpec } from './testing/grpc-fixtures';

const metadata: EventMetadata = {
  tenantId: 't1',
  actor: 'key:abc',
  timestamp: '2026-01-02T03:04:05.678Z',
  correlationId: 'c-1',
  extra: { nested: [1, 'two', null] },
};

const stored = (spec: Partial<RecordSpec> = {}): EsdbRecordedEvent =>
  convertGrpcRecord(
    grpcRecord({
      id: randomUUID(),
      stream: 'conv-t1.c1',
      revision: 0n,
      position: 1000n,
      type: 'MessageAppended',
      data: JSON.stringify({ text: 'hi' }),
      metadata: JSON.stringify(metadata),
      ...spec,
    }),
  ) as EsdbRecordedEvent;

/**
 * What the server hands back for an event the client appended: the client JSON.stringify-s data
 * and metadata of a JSON event; the server stores those bytes; the client parses them on read.
 */
const roundTrip = (event: EventData, position = 4242n) => {
  const sent = toEsdbEventData(event, 0);
  expect(sent.contentType).toBe('application/json');
  const received = convertGrpcRecord(
    grpcRecord({
      id: sent.id,
      stream: 'conv-t1.c1',
      revision: 7n,
      position,
      type: sent.type,
      data: JSON.stringify(sent.data),
      metadata: JSON.stringify(sent.metadata),
    }),
  ) as EsdbRecordedEvent;
  return toRecordedEvent(received);
};

const json: fc.Arbitrary<unknown> = fc.jsonValue().map((v) => JSON.parse(JSON.stringify(v)));

describe('events to EventStoreDB', () => {
  it('keeps a given UUID (lower-cased) and generates one when missing', () => {
    const id = randomUUID().toUpperCase();
    expect(toEsdbEventData({ id, type: 'A', data: {}, metadata }, 0).id).toBe(id.toLowerCase());
    const generated = toEsdbEventData({ type: 'A', data: {}, metadata }, 0).id;
    expect(generated).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  });

  it('refuses a bad id, an empty type, non-object metadata and data that is not JSON', () => {
    const bad: EventData[] = [
      { id: 'not-a-uuid', type: 'A', data: {}, metadata },
      { type: '', data: {}, metadata },
      { type: 'A', data: {}, metadata: null as unknown as EventMetadata },
      { type: 'A', data: { big: 1n }, metadata },
      { type: 'A', data: undefined, metadata },
    ];
    for (const event of bad) expect(() => toEsdbEventData(event, 0)).toThrow(InvalidEventError);
  });

  it('validates every event of an append before anything is sent', () => {
    const events: EventData[] = [
      { type: 'A', data: {}, metadata },
      { type: 'B', data: { big: 1n }, metadata },
    ];
    expect(() => toEsdbEvents(events)).toThrow(/event 1/);
  });
});

describe('recorded events from EventStoreDB', () => {
  it('round-trip any JSON data with metadata, type, id, revision and commit position', () => {
    fc.assert(
      fc.property(json, fc.bigInt({ min: 0n, max: 2n ** 62n }), (data, position) => {
        const id = randomUUID();
        const event = roundTrip({ id, type: 'MessageAppended', data, metadata }, position);
        expect(event).toEqual({
          id,
          streamName: 'conv-t1.c1',
          revision: 7n,
          position,
          type: 'MessageAppended',
          data,
          metadata,
          created: new Date('2026-01-01T00:00:00.000Z'),
        });
      }),
    );
  });

  it('take the created time from the server (.NET ticks)', () => {
    const created = new Date('2025-06-07T08:09:10.123Z');
    expect(toRecordedEvent(stored({ created })).created).toEqual(created);
  });

  it('parse metadata the client could not parse (raw JSON bytes)', () => {
    const event = stored();
    const raw = { ...event, metadata: Buffer.from(JSON.stringify(metadata)) } as EsdbRecordedEvent;
    expect(toRecordedEvent(raw).metadata).toEqual(metadata);
  });

  it('refuse events that are not JSON, lack object metadata, or carry no log position', () => {
    expect(() => toRecordedEvent(stored({ contentType: 'application/octet-stream' }))).toThrow(
      EventStoreError,
    );
    expect(() => toRecordedEvent(stored({ metadata: '[1,2]' }))).toThrow(/metadata/);
    expect(() => toRecordedEvent(stored({ metadata: undefined }))).toThrow(/metadata/);
    expect(() => toRecordedEvent(stored({ position: 2n ** 64n - 1n }))).toThrow(/position/);
  });
});
