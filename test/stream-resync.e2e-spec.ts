/**
 * A live stream survives a lost pub/sub message. With Redis, a replica's streams are woken by the
 * workers' `applied` messages (Redis pub/sub); a subscriber that drops and reconnects misses what
 * was published meanwhile, so on reconnect every open stream looks up the projected revision
 * itself (`ProjectedSignals.resync`). Here the subscriber connection is killed and kept out
 * (the server's `maxclients` lowered to what is connected) while a turn is committed and
 * projected, so its `applied` message is certainly lost; once the subscriber is let back in,
 * the stream must still deliver the turn.
 */
import { createClient } from 'redis';
import { clientFor, exchange } from './support/api';
import { type Harness, startHarness } from './support/harness';
import {
  describeWithRedisServer,
  type RedisServer,
  scaledEnv,
  startRedisServer,
} from './support/scaled';
import { openSse, type SseFrame } from './support/sse';

const data = (f: SseFrame) => JSON.parse(f.data as string) as { revision: number; type: string };

describeWithRedisServer('live stream after a pub/sub reconnect (Redis)', () => {
  let redis: RedisServer;
  let h: Harness;
  let ctl: ReturnType<typeof createClient>;

  beforeAll(async () => {
    redis = await startRedisServer();
    h = await startHarness(scaledEnv(redis.url));
    // Connected before maxclients is lowered, so the test can always raise it again.
    ctl = createClient({ url: redis.url });
    await ctl.connect();
  }, 120_000);
  afterAll(async () => {
    await ctl?.configSet('maxclients', '10000').catch(() => undefined);
    await ctl?.quit().catch(() => undefined);
    await h?.destroy();
    await redis?.kill();
  });

  it('delivers a turn whose applied message was published while the subscriber was away', async () => {
    const api = clientFor(h, (await h.createTenant('resync')).apiKey);
    const id = await api.start({ title: 'resync' });
    const s = await openSse(h.baseUrl, api.conv(id, '/stream'), api.key);
    expect(s.status).toBe(200);
    try {
      await s.next((f) => f.retry !== undefined);
      const pubsubClients = async () =>
        String(await ctl.sendCommand(['CLIENT', 'LIST', 'TYPE', 'pubsub']))
          .split('\n')
          .filter((l) => l.trim() !== '').length;
      expect(await pubsubClients()).toBeGreaterThan(0);
      const connected = String(await ctl.sendCommand(['CLIENT', 'LIST']))
        .split('\n')
        .filter((l) => l.trim() !== '').length;
      const subscribers = await pubsubClients();
      // After the kill, every slot is taken: the subscriber's reconnects are refused.
      await ctl.configSet('maxclients', String(connected - subscribers));
      await ctl.sendCommand(['CLIENT', 'KILL', 'TYPE', 'pubsub']);
      const t = await api.turn(id, null, exchange('while away'));
      // Projected (the read goes through the main connection) and the subscriber still out.
      expect((await api.tree(id)).tip).toBe(t.tip);
      await new Promise((r) => setTimeout(r, 300));
      expect(await pubsubClients()).toBe(0);
      await ctl.configSet('maxclients', '10000');
      const got: { revision: number; type: string }[] = [];
      while (got.at(-1)?.type !== 'TurnCommitted') got.push(data(await s.next(undefined, 15_000)));
      expect(got.map((e) => [e.revision, e.type])).toEqual([
        [1, 'MessageAppended'],
        [2, 'MessageAppended'],
        [3, 'TurnCommitted'],
      ]);
      // And live again afterwards, through the reconnected subscriber.
      await api.turn(id, undefined, exchange('after'));
      const next: number[] = [];
      while (next.length < 3) next.push(data(await s.next(undefined, 15_000)).revision);
      expect(next).toEqual([4, 5, 6]);
    } finally {
      s.close();
    }
  }, 120_000);
});
