/**
 * The connection factory on a real 3-master Redis Cluster of its own (`startRedisCluster`):
 * `scanKeys` finds keys on every master (one node's SCAN would not), a message published
 * through the cluster reaches a subscriber whichever node it is connected to, the erasure and
 * every other read-model write run as single-slot scripts, and the whole read-model contract
 * (property tests, the same as on one node) holds over `REDIS_CLUSTER_URLS`-style seeds.
 */
import { createClient } from 'redis';
import { readModelContract } from '../testing/read-model-contract';
import {
  describeWithRedisCluster,
  type RedisClusterServers,
  startRedisCluster,
} from '../testing/redis-cluster';
import { connectRedis, type RedisClient } from './connection';
import { createRedisReadModel, unlinkMatching } from './redis-read-model';

const PREFIX = 'arbor-test:conn';

describeWithRedisCluster(
  'Redis connection factory on a Redis Cluster',
  'the Redis Cluster connection suite (SCAN over every master, pub/sub, the read-model contract on a real 3-master cluster)',
  () => {
    let servers: RedisClusterServers;
    let client: RedisClient;
    let n = 0;

    beforeAll(async () => {
      servers = await startRedisCluster();
      // One seed is enough: the other masters are discovered.
      client = await connectRedis({ kind: 'cluster', urls: servers.urls.slice(0, 1) });
    }, 120_000);

    afterAll(async () => {
      await client?.close();
      await servers?.stop();
    });

    /** The keys of each master, asked of that node alone (not through the factory). */
    const perMaster = async (pattern: string): Promise<string[][]> => {
      const out: string[][] = [];
      for (const url of servers.urls) {
        const node = createClient({ url });
        await node.connect();
        const keys: string[] = [];
        for await (const batch of node.scanIterator({ MATCH: pattern, COUNT: 500 }))
          keys.push(...batch);
        out.push(keys);
        await node.close();
      }
      return out;
    };

    it('scanKeys walks every master; unlinkMatching removes keys of many slots one by one', async () => {
      const keys = Array.from({ length: 60 }, (_, i) => `${PREFIX}:scan:{k${i}}`);
      for (const k of keys) await client.set(k, '1');
      const nodes = await perMaster(`${PREFIX}:scan:*`);
      // The keys really are spread: every master holds some.
      expect(nodes.every((ks) => ks.length > 0)).toBe(true);
      expect((await client.scanKeys(`${PREFIX}:scan:*`)).sort()).toEqual([...keys].sort());
      expect(await unlinkMatching(client, `${PREFIX}:scan:*`)).toBe(60);
      expect((await perMaster(`${PREFIX}:scan:*`)).flat()).toEqual([]);
    });

    it('a message published through the cluster reaches every subscriber, on whichever node each listens', async () => {
      const others = await Promise.all(
        servers.urls.map((url) => connectRedis({ kind: 'cluster', urls: [url] })),
      );
      try {
        const heard: string[][] = others.map(() => []);
        const subs = await Promise.all(others.map((o) => o.subscriber()));
        await Promise.all(
          subs.map((s, i) => s.subscribe(`${PREFIX}:chan`, (m) => heard[i].push(m))),
        );
        // Published by a client of its own; the cluster forwards it to every node.
        for (let i = 0; i < 5; i++) await client.publish(`${PREFIX}:chan`, `m${i}`);
        for (let i = 0; i < 100 && heard.some((h) => h.length < 5); i++)
          await new Promise((r) => setTimeout(r, 20));
        expect(heard).toEqual(others.map(() => ['m0', 'm1', 'm2', 'm3', 'm4']));
        await Promise.all(subs.map((s) => s.close()));
      } finally {
        await Promise.all(others.map((o) => o.close()));
      }
    });

    readModelContract('Redis Cluster', {
      runs: 10,
      open: async () => createRedisReadModel({ client, prefix: PREFIX, generation: `g${++n}` }),
    });
  },
);
