import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { conversationStream, type EventStore } from '@arbor/event-store';
import { openSqliteEventStore } from '@arbor/event-store/sqlite';
import { conversationsProjection } from '../conversations';
import { play } from '../conversations/testing/histories';
import { createProjector } from '../projector';
import { cleanupPrefix, connectTestRedis, describeWithRedis, randomPrefix } from '../testing/redis';
import {
  checkpointKey,
  createProjectorPool,
  ensureLiveGeneration,
  leaseKey,
  partitionOf,
  type ProjectorPool,
} from './pool';
import {
  createRedisReadModel,
  dropGeneration,
  FencedError,
  generationKey,
  switchGeneration,
} from './redis-read-model';
import { type RedisClient } from './connection';

const SET = {
  projections: [conversationsProjection],
  filter: { streamPrefixes: ['conv-'] },
};
const PARTITIONS = 4;
const LEASE_MS = 600;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const until = async (what: string, cond: () => Promise<boolean>, ms = 15_000) => {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
};

/** Writes conversation `c<i>` (a few turns, a branch, a tip move) for each i. */
const writeConversations = async (store: EventStore, from: number, n: number) => {
  for (let i = from; i < from + n; i++) {
    const s = play([
      { kind: 'turn', from: 0, tool: i % 2 === 0 },
      { kind: 'turn', from: 0, tool: false },
      { kind: 'turn', from: 1, tool: true },
      { kind: 'move', to: i },
    ]);
    await store.appendToStream(
      conversationStream('t', `c${i}`),
      s.log.map((e) => ({
        type: e.type,
        data: e.data,
        metadata: { tenantId: 't', actor: 'spec', timestamp: '2026-01-01T00:00:00.000Z' },
      })),
    );
  }
};

describeWithRedis('projector pool (partition leases with fencing tokens)', () => {
  const prefix = randomPrefix('pool');
  let client: RedisClient;
  let store: EventStore;
  let dir: string;
  const pools: ProjectorPool[] = [];
  const poolOf = (workerId: string) => {
    const p = createProjectorPool({
      client,
      prefix,
      partitions: PARTITIONS,
      leaseMs: LEASE_MS,
      workerId,
      store,
      set: SET,
    });
    pools.push(p);
    return p;
  };
  const applied = async (generation: string): Promise<bigint> => {
    const raw = await client.mGet(
      Array.from({ length: PARTITIONS }, (_, i) => checkpointKey(prefix, generation, i)),
    );
    return raw.reduce((m, r) => (r === null ? -1n : BigInt(r) < m ? BigInt(r) : m), 1n << 62n);
  };

  beforeAll(async () => {
    client = await connectTestRedis();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-pool-'));
    store = openSqliteEventStore({ path: path.join(dir, 'events.sqlite'), synchronous: 'OFF' });
  });
  afterAll(async () => {
    for (const p of pools) await p.stop().catch(() => undefined);
    await store.close();
    await cleanupPrefix(client, prefix);
    await client.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('splits the partitions between live workers; a halted one loses them within the lease; the result equals a rebuild', async () => {
    await writeConversations(store, 0, 12);
    const a = poolOf('worker-a');
    const b = poolOf('worker-b');
    await a.start();
    await b.start();
    await a.tick();
    await b.tick();
    // Each holds its fair share (2 of 4), none twice.
    await until('a fair split', async () => {
      await a.tick();
      await b.tick();
      return a.status().owned.length === 2 && b.status().owned.length === 2;
    });
    const owners = [...a.status().owned, ...b.status().owned].map((o) => o.partition).sort();
    expect(owners).toEqual([0, 1, 2, 3]);

    const generation = (await client.get(generationKey(prefix))) as string;
    await until(
      'caught up',
      async () => (await applied(generation)) >= ((await store.headPosition()) as bigint),
    );

    // a dies without giving its leases back; b takes them once they expire.
    await a.halt();
    const died = Date.now();
    await writeConversations(store, 12, 6);
    await until('b owns every partition', async () => b.status().owned.length === PARTITIONS);
    const takeover = Date.now() - died;
    // Bounded: the lease, plus one tick of b (lease / 3), plus slack for a loaded machine.
    expect(takeover).toBeLessThan(LEASE_MS * 6);
    await until(
      'caught up after the takeover',
      async () => (await applied(generation)) >= ((await store.headPosition()) as bigint),
    );

    // Rebuild into a generation of its own, by one unpartitioned projector: equal, byte for byte.
    const live = createRedisReadModel({ client, prefix, generation });
    const fresh = createRedisReadModel({ client, prefix, generation: 'rebuilt' });
    const projector = createProjector({ store, sink: fresh.sink, set: SET });
    await projector.start();
    await projector.waitFor((await store.headPosition()) as bigint, 10_000);
    await projector.stop();
    const dump = await live.sink.dump();
    expect(dump.length).toBeGreaterThan(1000);
    expect(dump).toBe(await fresh.sink.dump());
    await b.stop();
  });

  it('a worker whose lease was taken over never moves the checkpoint nor overwrites what its successor wrote', async () => {
    const generation = await ensureLiveGeneration(client, prefix, null);
    const partition = partitionOf(conversationStream('t', 'fenced'), PARTITIONS);
    const key = leaseKey(prefix, partition);
    await client.set(key, 'worker-old:7', { PX: 60_000 });
    const writer = (value: string, token: number) =>
      createRedisReadModel({
        client,
        prefix,
        generation,
        name: `p${partition}`,
        guardGeneration: generation,
        fence: () => ({ leaseKey: key, leaseValue: value, token }),
      });
    const old = writer('worker-old:7', 7);
    const s = play([
      { kind: 'turn', from: 0, tool: false },
      { kind: 'turn', from: 1, tool: false },
    ]);
    await store.appendToStream(
      conversationStream('t', 'fenced'),
      s.log.map((e) => ({
        type: e.type,
        data: e.data,
        metadata: { tenantId: 't', actor: 'spec', timestamp: '2026-01-01T00:00:00.000Z' },
      })),
    );
    const events = await store.readStream(conversationStream('t', 'fenced'));
    expect(events.length).toBeGreaterThan(4);
    const checkpoint = () => client.get(checkpointKey(prefix, generation, partition));
    // The lease expired and another worker took it with a newer token.
    await client.set(key, 'worker-new:8', { PX: 60_000 });
    const before = await checkpoint();
    await expect(old.sink.apply(events.slice(0, 1), events[0].position)).rejects.toBeInstanceOf(
      FencedError,
    );
    expect(await checkpoint()).toBe(before);
    // The successor projects the first turn…
    const successor = writer('worker-new:8', 8);
    const firstTurn = events.findIndex((e) => e.type === 'TurnCommitted') + 1;
    await successor.sink.apply(events.slice(0, firstTurn), events[firstTurn - 1].position);
    const written = await successor.sink.dump();
    expect((await successor.queries.getConversation('t', 'fenced'))?.turnCount).toBe(1);
    // …and the old worker's next batch on that conversation is refused: the conversation has seen
    // token 8, so nothing of it changes and the checkpoint stays the successor's.
    await expect(
      old.sink.apply(events.slice(firstTurn), events[events.length - 1].position),
    ).rejects.toBeInstanceOf(FencedError);
    expect(await successor.sink.dump()).toBe(written);
    expect(await checkpoint()).toBe(events[firstTurn - 1].position.toString());
    // Even with the lease value forged back, token 7 is older than what the conversation saw.
    await client.set(key, 'worker-old:7', { PX: 60_000 });
    await expect(
      old.sink.apply(events.slice(firstTurn), events[events.length - 1].position),
    ).rejects.toBeInstanceOf(FencedError);
    expect(await successor.sink.dump()).toBe(written);
    // Expired outright (no holder): refused as well.
    await client.del(key);
    await expect(
      successor.sink.apply(events.slice(firstTurn), events[events.length - 1].position),
    ).rejects.toBeInstanceOf(FencedError);
    expect(await checkpoint()).toBe(events[firstTurn - 1].position.toString());
    // The holder writes; applying the same events again changes nothing.
    await client.set(key, 'worker-new:8', { PX: 60_000 });
    await successor.sink.apply(events, events[events.length - 1].position);
    const once = await successor.sink.dump();
    expect((await successor.queries.getConversation('t', 'fenced'))?.turnCount).toBe(2);
    await successor.sink.apply(events, events[events.length - 1].position);
    expect(await successor.sink.dump()).toBe(once);
    // A switched (or missing) generation marker refuses too.
    await client.set(generationKey(prefix), 'another');
    await expect(successor.sink.apply(events, events[0].position)).rejects.toBeInstanceOf(
      FencedError,
    );
    await client.del(generationKey(prefix));
    await expect(successor.sink.apply(events, events[0].position)).rejects.toBeInstanceOf(
      FencedError,
    );
  });

  it('a worker that finds the generation switched drops what its batches still wrote into the dead one', async () => {
    // The test before left a lease held by a worker that is not running.
    for (let p = 0; p < PARTITIONS; p++) await client.del(leaseKey(prefix, p));
    const c = poolOf('worker-c');
    await c.start();
    await until('c owns every partition', async () => {
      await c.tick();
      return c.status().owned.length === PARTITIONS;
    });
    const dead = (await client.get(generationKey(prefix))) as string;
    await until(
      'caught up',
      async () => (await applied(dead)) >= ((await store.headPosition()) as bigint),
    );
    expect((await client.scanKeys(`${prefix}:${dead}:*`)).length).toBeGreaterThan(10);
    // A rebuild switched and dropped the old generation; then a batch of c, computed before its
    // next tick, still wrote a conversation's rows there (its checkpoint was refused).
    await switchGeneration(client, prefix, `${dead}-next`);
    await dropGeneration(client, prefix, dead);
    await client.set(`${prefix}:${dead}:{t:late}:conv`, '{"revision":0}');
    await c.tick();
    expect(c.status().owned.map((o) => o.generation)).toEqual(
      Array.from({ length: PARTITIONS }, () => `${dead}-next`),
    );
    expect(await client.scanKeys(`${prefix}:${dead}:*`)).toEqual([]);
    await c.stop();
  });
});
