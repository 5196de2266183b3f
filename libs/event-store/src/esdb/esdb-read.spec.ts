import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { StreamNotFoundError } from '../errors';
import { type AllFilter, type Direction, type RecordedEvent } from '../types';
import { headPosition, readAllEvents, readStreamEvents } from './esdb-read';
import { createFakeClient } from './testing/fake-client';
import { type RecordSpec } from './testing/grpc-fixtures';

const metadata = JSON.stringify({ tenantId: 't', actor: 'a', timestamp: '2026-01-01T00:00:00Z' });

const rec = (position: bigint, stream: string, type: string, revision = 0n): RecordSpec => ({
  id: randomUUID(),
  stream,
  revision,
  position,
  type,
  data: type.startsWith('$') ? Buffer.from([0xff, 0x00]) : JSON.stringify({ p: Number(position) }),
  metadata: type.startsWith('$') ? undefined : metadata,
  contentType: type.startsWith('$') ? 'application/octet-stream' : 'application/json',
});

/** A log like a real server's: system records mixed in, user events in several streams. */
const LOG: RecordSpec[] = [
  rec(0n, '$epoch-information', '$epoch-information'),
  rec(100n, 'conv-a.1', 'A', 0n),
  rec(200n, 'conv-b.1', 'B', 0n),
  rec(300n, '$$conv-a.1', '$metadata'),
  rec(400n, 'conv-a.1', 'B', 1n),
  rec(500n, 'other-x', 'A', 0n),
  rec(600n, 'conv-a.1', 'A', 2n),
  rec(700n, '$stats-1', '$statsCollected'),
];

const positions = (events: RecordedEvent[]) => events.map((e) => e.position);

/** The port's meaning of readAll over LOG, computed independently. */
const expected = (
  direction: Direction,
  from: bigint | 'start' | 'end' | undefined,
  maxCount: number | undefined,
  filter: AllFilter | undefined,
): bigint[] => {
  const user = LOG.filter((r) => !r.type.startsWith('$') && !r.stream.startsWith('$')).filter(
    (r) =>
      (filter?.streamPrefixes === undefined ||
        filter.streamPrefixes.some((p) => r.stream.startsWith(p))) &&
      (filter?.eventTypes === undefined || filter.eventTypes.includes(r.type)),
  );
  const start = from ?? (direction === 'forwards' ? 'start' : 'end');
  const kept =
    direction === 'forwards'
      ? user.filter((r) => start === 'start' || (start !== 'end' && r.position >= start))
      : user.filter((r) => start === 'end' || (start !== 'start' && r.position <= start)).reverse();
  return kept.slice(0, maxCount ?? Infinity).map((r) => r.position);
};

describe('readAll over the client', () => {
  it('matches the port meaning for any start, direction, maxCount and filter, whichever way the server treats backwards bounds', async () => {
    const fromArb = fc.oneof(
      fc.constantFrom<'start' | 'end' | undefined>('start', 'end', undefined),
      fc.constantFrom(...LOG.map((r) => r.position)),
    );
    const filterArb = fc.option(
      fc.record(
        {
          streamPrefixes: fc.subarray(['conv-', 'conv-a', 'other', '$']),
          eventTypes: fc.subarray(['A', 'B', '$metadata']),
        },
        { requiredKeys: [] },
      ),
      { nil: undefined },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<Direction>('forwards', 'backwards'),
        fromArb,
        fc.option(fc.integer({ min: 0, max: 6 }), { nil: undefined }),
        filterArb,
        fc.boolean(),
        async (direction, from, maxCount, filter, backwardsInclusive) => {
          const { client } = createFakeClient([...LOG], { backwardsInclusive });
          const events = await readAllEvents(client, {
            direction,
            fromPosition: from,
            maxCount,
            filter,
          });
          expect(positions(events)).toEqual(expected(direction, from, maxCount, filter));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('reads backwards from a position inclusively: the event at it, then the ones before', async () => {
    const { client, calls } = createFakeClient([...LOG]);
    const events = await readAllEvents(client, { direction: 'backwards', fromPosition: 400n });
    expect(positions(events)).toEqual([400n, 200n, 100n]);
    expect(calls.map((c) => c.method)).toEqual(['readAll', 'readAll']);
  });

  it('stops reading and cancels the call once maxCount events have passed the filter', async () => {
    const fake = createFakeClient([...LOG]);
    const events = await readAllEvents(fake.client, { maxCount: 1 });
    expect(positions(events)).toEqual([100n]);
    expect(fake.cancelled()).toBe(1);
  });

  it('maps the recorded events (stream, revision, type, data, metadata)', async () => {
    const { client } = createFakeClient([...LOG]);
    const [event] = await readAllEvents(client, { filter: { streamPrefixes: ['other'] } });
    expect(event).toMatchObject({
      streamName: 'other-x',
      revision: 0n,
      position: 500n,
      type: 'A',
      data: { p: 500 },
      metadata: { tenantId: 't' },
    });
  });
});

describe('headPosition', () => {
  it('is the last non-system event, or null when there is none', async () => {
    expect(await headPosition(createFakeClient([...LOG]).client)).toBe(600n);
    expect(await headPosition(createFakeClient([LOG[0], LOG[7]]).client)).toBeNull();
  });
});

describe('readStream over the client', () => {
  it('reads forwards, backwards and from a revision with maxCount', async () => {
    const { client } = createFakeClient([...LOG]);
    const revisions = async (options: Parameters<typeof readStreamEvents>[2]) =>
      (await readStreamEvents(client, 'conv-a.1', options)).map((e) => e.revision);
    expect(await revisions({})).toEqual([0n, 1n, 2n]);
    expect(await revisions({ direction: 'backwards' })).toEqual([2n, 1n, 0n]);
    expect(await revisions({ fromRevision: 1n, maxCount: 1 })).toEqual([1n]);
    expect(await revisions({ direction: 'backwards', fromRevision: 1n })).toEqual([1n, 0n]);
    expect(await revisions({ maxCount: 0 })).toEqual([]);
    expect(await revisions({ direction: 'backwards', fromRevision: -1n })).toEqual([]);
  });

  it('throws our StreamNotFoundError for a missing stream, even when nothing would be returned', async () => {
    const { client } = createFakeClient([...LOG]);
    for (const options of [
      {},
      { maxCount: 0 },
      { direction: 'backwards' as const, fromRevision: -1n },
    ]) {
      const error = await readStreamEvents(client, 'conv-missing.1', options).catch((e) => e);
      expect(error).toBeInstanceOf(StreamNotFoundError);
      expect(error.streamName).toBe('conv-missing.1');
    }
  });
});
