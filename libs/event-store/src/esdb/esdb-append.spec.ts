import { InvalidEventError, InvalidStreamNameError, WrongExpectedVersionError } from '../errors';
import { type EventData, type EventMetadata } from '../types';
import { appendEvents } from './esdb-append';
import { createFakeClient } from './testing/fake-client';

const metadata: EventMetadata = { tenantId: 't', actor: 'a', timestamp: '2026-01-01T00:00:00Z' };
const events = (n: number): EventData[] =>
  Array.from({ length: n }, (_, i) => ({ type: 'Counted', data: { i }, metadata }));

describe('appendEvents over the client', () => {
  it("reports the next expected revision and the position of the append's LAST event", async () => {
    const fake = createFakeClient();
    const first = await appendEvents(fake.client, 'conv-t.c', events(3));
    const stored = fake.log.filter((r) => r.stream === 'conv-t.c');
    expect(first).toEqual({ nextExpectedRevision: 2n, position: stored[2].position });
    const second = await appendEvents(fake.client, 'conv-t.c', events(1), {
      expectedRevision: 2n,
    });
    expect(second).toEqual({ nextExpectedRevision: 3n, position: fake.log[3].position });
  });

  it('passes the expected revision to the client as its constant or the exact revision', async () => {
    const fake = createFakeClient();
    await appendEvents(fake.client, 's-1', events(1), { expectedRevision: 'no_stream' });
    await appendEvents(fake.client, 's-1', events(1), { expectedRevision: 'stream_exists' });
    await appendEvents(fake.client, 's-1', events(1), { expectedRevision: 1n });
    await appendEvents(fake.client, 's-1', events(1));
    const sent = fake.calls
      .filter((c) => c.method === 'appendToStream')
      .map((c) => (c.options as { expectedRevision: unknown }).expectedRevision);
    expect(sent).toEqual(['no_stream', 'stream_exists', 1n, 'any']);
  });

  it("maps the client's wrong-expected-version to ours (our expected, the server's actual)", async () => {
    const fake = createFakeClient();
    await appendEvents(fake.client, 's-1', events(2));
    const error = await appendEvents(fake.client, 's-1', events(1), {
      expectedRevision: 'no_stream',
    }).catch((e) => e);
    expect(error).toBeInstanceOf(WrongExpectedVersionError);
    expect(error).toMatchObject({ streamName: 's-1', expected: 'no_stream', actual: 1n });
  });

  it('answers an empty append itself: checks the expected revision, reports where the stream is', async () => {
    const fake = createFakeClient();
    expect(await appendEvents(fake.client, 's-1', [])).toEqual({
      nextExpectedRevision: -1n,
      position: -1n,
    });
    await appendEvents(fake.client, 's-1', events(2));
    expect(await appendEvents(fake.client, 's-1', [], { expectedRevision: 1n })).toEqual({
      nextExpectedRevision: 1n,
      position: fake.log[1].position,
    });
    const error = await appendEvents(fake.client, 's-1', [], { expectedRevision: 0n }).catch(
      (e) => e,
    );
    expect(error).toMatchObject({ expected: 0n, actual: 1n });
    const missing = await appendEvents(fake.client, 's-2', [], {
      expectedRevision: 'stream_exists',
    }).catch((e) => e);
    expect(missing).toMatchObject({ expected: 'stream_exists', actual: 'no_stream' });
    expect(fake.calls.filter((c) => c.method === 'appendToStream')).toHaveLength(1);
  });

  it('validates the stream name and every event before calling the client', async () => {
    const fake = createFakeClient();
    await expect(appendEvents(fake.client, '$all', events(1))).rejects.toBeInstanceOf(
      InvalidStreamNameError,
    );
    const bad = [...events(1), { type: 'X', data: { n: 1n }, metadata }];
    await expect(appendEvents(fake.client, 's-1', bad)).rejects.toBeInstanceOf(InvalidEventError);
    expect(fake.calls).toEqual([]);
  });
});
