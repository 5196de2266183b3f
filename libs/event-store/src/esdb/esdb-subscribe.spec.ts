import { randomUUID } from 'node:crypto';
import { type SubscribeToAllOptions as EsdbSubscribeOptions } from '@eventstore/db-client';
import { type SubscriptionMessage } from '../types';
import { subscribeToAll, subscriptionStart } from './esdb-subscribe';
import { createFakeClient } from './testing/fake-client';
import { caughtUpResp, checkpointResp, eventResp, type RecordSpec } from './testing/grpc-fixtures';

const metadata = JSON.stringify({ tenantId: 't', actor: 'a', timestamp: '2026-01-01T00:00:00Z' });

const rec = (position: bigint, stream = 'conv-t1.c1', type = 'A'): RecordSpec => ({
  id: randomUUID(),
  stream,
  revision: 0n,
  position,
  type,
  data: '{}',
  metadata,
});

const take = async (iterable: AsyncIterable<SubscriptionMessage>, n: number) => {
  const out: string[] = [];
  const iterator = iterable[Symbol.asyncIterator]();
  while (out.length < n) {
    const next = await iterator.next();
    if (next.done) break;
    const m = next.value;
    out.push(m.kind === 'event' ? `e${m.event.position}` : `${m.kind}@${String(m.position)}`);
  }
  return out;
};

describe('subscribeToAll over the client', () => {
  it('starts after a position (exclusive, as { commit, prepare }), from START or END', () => {
    expect(subscriptionStart(undefined)).toBe('start');
    expect(subscriptionStart('start')).toBe('start');
    expect(subscriptionStart('end')).toBe('end');
    expect(subscriptionStart(42n)).toEqual({ commit: 42n, prepare: 42n });
    expect(subscriptionStart(-1n)).toBe('start');
    expect(subscriptionStart(2n ** 64n)).toBe('end');
  });

  it('subscribes with the server part of the filter and the checkpoint interval', async () => {
    const fake = createFakeClient();
    const subscription = subscribeToAll(fake.client, {
      fromPosition: 7n,
      filter: { streamPrefixes: ['conv-t1.'], eventTypes: ['A'] },
      checkpointInterval: 100,
    });
    const [call] = fake.calls.filter((c) => c.method === 'subscribeToAll');
    const options = call.options as EsdbSubscribeOptions;
    expect(options.fromPosition).toEqual({ commit: 7n, prepare: 7n });
    expect(options.filter).toMatchObject({
      filterOn: 'streamName',
      prefixes: ['conv-t1.'],
      maxSearchWindow: 32,
      checkpointInterval: 4,
    });
    expect(typeof options.filter?.checkpointReached).toBe('function');
    await subscription.unsubscribe();
  });

  it('without a filter still filters out system events on the server (and reports no checkpoints)', async () => {
    const fake = createFakeClient([rec(100n)]);
    const subscription = subscribeToAll(fake.client);
    const options = fake.calls.find((c) => c.method === 'subscribeToAll')
      ?.options as EsdbSubscribeOptions;
    expect(options.filter).toMatchObject({ filterOn: 'eventType', regex: '^[^$].*' });
    const [call] = fake.subscriptions;
    call.stream.write(eventResp(rec(100n)));
    call.stream.write(checkpointResp(132n));
    call.stream.write(caughtUpResp());
    expect(await take(subscription, 2)).toEqual(['e100', 'caughtUp@100']);
    await subscription.unsubscribe();
  });

  it('delivers events, checkpoints and caught-up (at least the head read before subscribing)', async () => {
    const fake = createFakeClient([rec(100n), rec(200n, 'conv-t2.c1'), rec(900n, 'other-x')]);
    const subscription = subscribeToAll(fake.client, { filter: { streamPrefixes: ['conv-t1.'] } });
    const [call] = fake.subscriptions;
    call.stream.write(eventResp(rec(100n)));
    call.stream.write(checkpointResp(200n));
    call.stream.write(caughtUpResp());
    expect(await take(subscription, 3)).toEqual(['e100', 'checkpoint@200', 'caughtUp@900']);
    await subscription.unsubscribe();
    expect(call.cancelled()).toBe(true);
  });
});
