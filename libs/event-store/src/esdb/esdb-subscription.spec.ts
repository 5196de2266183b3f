import { randomUUID } from 'node:crypto';
import { EventStoreError, StoreUnavailableError } from '../errors';
import { type SubscriptionMessage } from '../types';
import { planFilter } from './esdb-filter';
import {
  attachListeners,
  checkpointReached,
  type MessageSettings,
  toSubscription,
} from './esdb-subscription';
import {
  caughtUpResp,
  checkpointResp,
  clientSubscription,
  confirmationResp,
  eventResp,
  fakeCall,
  fellBehindResp,
  type FakeCall,
  type RecordSpec,
} from './testing/grpc-fixtures';

const metadata = JSON.stringify({ tenantId: 't', actor: 'a', timestamp: '2026-01-01T00:00:00Z' });

const record = (position: bigint, overrides: Partial<RecordSpec> = {}): RecordSpec => ({
  id: randomUUID(),
  stream: 'conv-t1.c1',
  revision: position,
  position,
  type: 'MessageAppended',
  data: JSON.stringify({ at: Number(position) }),
  metadata,
  ...overrides,
});

const settings = (overrides: Partial<MessageSettings> = {}): MessageSettings => ({
  accepts: planFilter(undefined).accepts,
  checkpoints: false,
  headBeforeSubscribe: Promise.resolve(null),
  ...overrides,
});

/** A port subscription over the client's real Subscription class, fed by a fake gRPC call. */
const subscribe = (overrides: Partial<MessageSettings> = {}) => {
  const call = fakeCall();
  const source = clientSubscription(call, checkpointReached);
  attachListeners(source);
  let ended = 0;
  const subscription = toSubscription(source, settings(overrides), () => ended++);
  return { call, source, subscription, ended: () => ended };
};

const write = (call: FakeCall, ...responses: unknown[]) => {
  for (const response of responses) call.stream.write(response);
};

const take = async (
  iterator: AsyncIterator<SubscriptionMessage>,
  n: number,
): Promise<SubscriptionMessage[]> => {
  const out: SubscriptionMessage[] = [];
  while (out.length < n) {
    const next = await iterator.next();
    if (next.done) break;
    out.push(next.value);
  }
  return out;
};

const tick = () => new Promise((resolve) => setImmediate(resolve));

const summary = (messages: SubscriptionMessage[]) =>
  messages.map((m) =>
    m.kind === 'event' ? `e${m.event.position}` : `${m.kind}@${String(m.position)}`,
  );

describe('EventStoreDB subscription (client v6 Subscription class, fake gRPC call)', () => {
  it('delivers events, then caughtUp once, then live events, in server order', async () => {
    const { call, subscription } = subscribe();
    const it = subscription[Symbol.asyncIterator]();
    write(call, confirmationResp(), eventResp(record(10n)), eventResp(record(20n)), caughtUpResp());
    write(call, eventResp(record(30n)), fellBehindResp(), eventResp(record(40n)), caughtUpResp());
    write(call, eventResp(record(50n)));
    expect(summary(await take(it, 6))).toEqual(['e10', 'e20', 'caughtUp@20', 'e30', 'e40', 'e50']);
    await subscription.unsubscribe();
  });

  it('keeps caughtUp after every event the server sent before it, even when they sit in the buffer', async () => {
    const { call, subscription } = subscribe();
    const positions = Array.from({ length: 60 }, (_, i) => BigInt(i + 1));
    write(call, ...positions.map((p) => eventResp(record(p))), caughtUpResp());
    write(call, eventResp(record(100n)));
    await new Promise((resolve) => setTimeout(resolve, 20)); // let the stream fill its buffer
    const messages = await take(subscription[Symbol.asyncIterator](), 62);
    expect(summary(messages)).toEqual([...positions.map((p) => `e${p}`), 'caughtUp@60', 'e100']);
    await subscription.unsubscribe();
  });

  it('reports as caught-up position the greater of the head read before subscribing and the last seen', async () => {
    const ahead = subscribe({ headBeforeSubscribe: Promise.resolve(500n) });
    write(ahead.call, eventResp(record(10n)), caughtUpResp());
    expect(summary(await take(ahead.subscription[Symbol.asyncIterator](), 2))).toEqual([
      'e10',
      'caughtUp@500',
    ]);
    await ahead.subscription.unsubscribe();

    const empty = subscribe();
    write(empty.call, caughtUpResp());
    expect(summary(await take(empty.subscription[Symbol.asyncIterator](), 1))).toEqual([
      'caughtUp@null',
    ]);
    await empty.subscription.unsubscribe();
  });

  it('re-checks the port filter client-side and drops system events', async () => {
    const { accepts } = planFilter({ streamPrefixes: ['conv-t1.'], eventTypes: ['Wanted'] });
    const { call, subscription } = subscribe({ accepts });
    write(
      call,
      eventResp(record(1n, { type: 'Noise' })),
      eventResp(record(2n, { type: 'Wanted' })),
      eventResp(record(3n, { type: 'Wanted', stream: 'conv-t2.c1' })),
      eventResp(record(4n, { type: '$metadata', data: 'not json at all' })),
      eventResp(record(5n, { type: 'Wanted' })),
      caughtUpResp(),
    );
    expect(summary(await take(subscription[Symbol.asyncIterator](), 3))).toEqual([
      'e2',
      'e5',
      'caughtUp@5',
    ]);
    await subscription.unsubscribe();
  });

  it('delivers checkpoints in order with events to filtered subscribers, never moving backwards', async () => {
    const { call, subscription } = subscribe({ checkpoints: true });
    write(
      call,
      eventResp(record(10n)),
      checkpointResp(32n),
      checkpointResp(31n), // stale: a server repeating an older checkpoint
      eventResp(record(40n)),
      checkpointResp(2n ** 64n - 1n), // "no position": never a resume point
      checkpointResp(64n),
      caughtUpResp(),
    );
    expect(summary(await take(subscription[Symbol.asyncIterator](), 5))).toEqual([
      'e10',
      'checkpoint@32',
      'e40',
      'checkpoint@64',
      'caughtUp@64',
    ]);
    await subscription.unsubscribe();
  });

  it('does not report checkpoints to unfiltered subscribers (as the SQLite store)', async () => {
    const { call, subscription } = subscribe({ checkpoints: false });
    write(call, checkpointResp(32n), eventResp(record(40n)), caughtUpResp());
    expect(summary(await take(subscription[Symbol.asyncIterator](), 2))).toEqual([
      'e40',
      'caughtUp@40',
    ]);
    await subscription.unsubscribe();
  });

  it('unsubscribe ends a pending iteration, cancels the call, and is idempotent', async () => {
    const { call, subscription, ended } = subscribe();
    const it = subscription[Symbol.asyncIterator]();
    write(call, caughtUpResp());
    await take(it, 1);
    const pending = it.next();
    await new Promise((resolve) => setTimeout(resolve, 10));
    await subscription.unsubscribe();
    expect(await pending).toEqual({ done: true, value: undefined });
    await subscription.unsubscribe();
    expect(call.cancelled()).toBe(true);
    expect(ended()).toBe(1);
  });

  it('breaking out of the loop cancels the call', async () => {
    const { call, subscription } = subscribe();
    write(call, eventResp(record(1n)), eventResp(record(2n)));
    for await (const message of subscription) {
      expect(message.kind).toBe('event');
      break;
    }
    expect(call.cancelled()).toBe(true);
  });

  it('ends the iteration with StoreUnavailableError when the call fails', async () => {
    const { call, subscription } = subscribe();
    const it = subscription[Symbol.asyncIterator]();
    const next = it.next();
    await tick(); // the client attaches its handlers to the call once the call exists
    call.stream.emit('error', Object.assign(new Error('14 UNAVAILABLE: gone'), { code: 14 }));
    await expect(next).rejects.toBeInstanceOf(StoreUnavailableError);
  });

  it('a call failure while nobody iterates is not an unhandled error', async () => {
    const { call, subscription } = subscribe();
    await tick();
    call.stream.emit('error', new Error('boom'));
    await new Promise((resolve) => setTimeout(resolve, 10));
    await subscription.unsubscribe();
  });

  it('ends the iteration with an EventStoreError on an event it cannot map', async () => {
    const { call, subscription } = subscribe();
    write(call, eventResp(record(1n, { contentType: 'application/octet-stream' })));
    await expect(subscription[Symbol.asyncIterator]().next()).rejects.toBeInstanceOf(
      EventStoreError,
    );
  });
});
