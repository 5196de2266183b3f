/**
 * Redis Cluster: a script may only touch keys of one hash slot. A real 3-master cluster of its
 * own (redis-server --cluster-enabled yes on free ports, joined by `redis-cli --cluster create`),
 * reached through node-redis `createCluster`, runs every script of the read models and the pool
 * with the key sets they build; a script over two slots is refused there (CROSSSLOT) and by
 * `runScript` before it is sent. The slot computation is checked against `CLUSTER KEYSLOT`.
 */
import { createClient, createCluster } from 'redis';
import {
  describeWithRedisCluster,
  type RedisClusterServers,
  startRedisCluster,
} from '../testing/redis-cluster';
import { type RedisClient } from './connection';
import { ACQUIRE, checkpointKey, fenceKey, leaseKey, metaKey, RELEASE, RENEW } from './pool';
import {
  APPLY_CONVERSATION_SCRIPT,
  CHECKPOINT_SCRIPT,
  ERASE_CONVERSATION_SCRIPT,
  FORK_ADD_SCRIPT,
  FORK_REMOVE_SCRIPT,
  generationKey,
  LIST_REMOVE_SCRIPT,
  LIST_UPDATE_SCRIPT,
  runScript,
  slotOf,
} from './redis-read-model';

const PREFIX = 'arbor-test:cluster';
const G = 'g1';
const conv = (t: string, c: string) => `${PREFIX}:${G}:{${t}:${c}}`;

const suite = () => {
  let servers: RedisClusterServers;
  let ports: number[] = [];
  let cluster: ReturnType<typeof createCluster>;

  /** The cluster client as the narrow client `runScript` takes (it routes by the first key). */
  const viaCluster = (): RedisClient =>
    ({
      sendCommand: (args: string[], key?: string) => cluster.sendCommand(key, false, args),
    }) as unknown as RedisClient;

  beforeAll(async () => {
    servers = await startRedisCluster();
    ports = servers.ports;
    cluster = createCluster({ rootNodes: servers.urls.map((url) => ({ url })) });
    await cluster.connect();
  }, 120_000);

  afterAll(async () => {
    await cluster?.close().catch(() => undefined);
    await servers?.stop();
  });

  it('computes the slot of every key shape as CLUSTER KEYSLOT does', async () => {
    const probe = createClient({ url: `redis://127.0.0.1:${ports[0]}` });
    await probe.connect();
    const keys = [
      `${conv('t1', 'c1')}:conv`,
      `${conv('t1', 'c1')}:bodies`,
      `${PREFIX}:${G}:{t1}:list`,
      generationKey(PREFIX),
      leaseKey(PREFIX, 3),
      checkpointKey(PREFIX, G, 3),
      metaKey(PREFIX, G),
      'no-tag-at-all',
    ];
    for (const key of keys) {
      expect(slotOf(key)).toBe(Number(await probe.sendCommand(['CLUSTER', 'KEYSLOT', key])));
    }
    await probe.quit();
    // The control keys share a slot; a conversation's keys share theirs.
    expect(new Set(keys.slice(3, 7).map(slotOf)).size).toBe(1);
    expect(slotOf(`${conv('t1', 'c1')}:conv`)).toBe(slotOf(`${conv('t1', 'c1')}:order`));
  });

  it('runs the pool and read-model scripts with the keys they build, on three masters', async () => {
    const client = viaCluster();
    // The slots in play live on more than one master (else this proves little).
    const owners = new Set(
      [generationKey(PREFIX), `${conv('t1', 'c1')}:conv`, `${PREFIX}:${G}:{t1}:list`].map(
        (k) => cluster.getSlotMaster(slotOf(k)).port,
      ),
    );
    expect(owners.size).toBeGreaterThan(1);

    await cluster.set(generationKey(PREFIX), G);
    const token = Number(
      await runScript(client, ACQUIRE, [leaseKey(PREFIX, 0), fenceKey(PREFIX, 0)], ['w1', '5000']),
    );
    expect(token).toBe(1);
    expect(await runScript(client, RENEW, [leaseKey(PREFIX, 0)], ['w1:1', '5000'])).toBe(1);

    const k = conv('t1', 'c1');
    const row = JSON.stringify({ id: 'c1', revision: 3 });
    const keys = [`${k}:conv`, `${k}:fence`, `${k}:erased`, `${k}:msgs`];
    const apply = (stored: number, tok: number) =>
      runScript(client, APPLY_CONVERSATION_SCRIPT, keys, [
        String(stored),
        String(tok),
        '3',
        'SET',
        `${k}:conv`,
        row,
        '4',
        'HSET',
        `${k}:msgs`,
        'm1',
        '{}',
      ]);
    expect(await apply(-1, 1)).toBe(1);
    expect(await cluster.get(`${k}:conv`)).toBe(row);
    // Computed from a stale revision, or by an older token: refused on the cluster as well.
    await expect(apply(-1, 1)).rejects.toThrow(/ARBOR_FENCED/);
    await cluster.set(`${k}:fence`, '9');
    await expect(apply(3, 1)).rejects.toThrow(/ARBOR_FENCED/);

    const list = [
      `${PREFIX}:${G}:{t1}:list`,
      `${PREFIX}:${G}:{t1}:gone`,
      `${PREFIX}:${G}:{t1}:list:activity`,
      `${PREFIX}:${G}:{t1}:list:title`,
    ];
    const members = ['a\u0000c1', 't\u0000c1'];
    expect(await runScript(client, LIST_UPDATE_SCRIPT, list, ['1', 'c1', '', '', ...members])).toBe(
      1,
    );
    expect(await cluster.zCard(list[2])).toBe(1);
    expect(await runScript(client, LIST_REMOVE_SCRIPT, list, ['c1', ...members])).toBe(1);
    expect(await cluster.zCard(list[2])).toBe(0);
    expect(await runScript(client, LIST_UPDATE_SCRIPT, list, ['1', 'c1', '', '', ...members])).toBe(
      0,
    );
    const forks = [`${k}:forks`, `${k}:forksgone`, `${k}:erased`];
    expect(await runScript(client, FORK_ADD_SCRIPT, forks, ['f1', '{}'])).toBe(1);
    expect(await runScript(client, FORK_REMOVE_SCRIPT, forks, ['f1'])).toBe(1);
    expect(await runScript(client, FORK_ADD_SCRIPT, forks, ['f1', '{}'])).toBe(0);
    // The erasure: every key of the conversation unlinked and the marker set, in its slot.
    expect(
      await runScript(
        client,
        ERASE_CONVERSATION_SCRIPT,
        [`${k}:erased`, `${k}:conv`, `${k}:msgs`, `${k}:forks`],
        ['{"revision":9}'],
      ),
    ).toBe(1);
    expect(await cluster.get(`${k}:conv`)).toBeNull();
    expect(await cluster.get(`${k}:erased`)).toBe('{"revision":9}');

    const cp = [checkpointKey(PREFIX, G, 0), generationKey(PREFIX), leaseKey(PREFIX, 0)];
    expect(await runScript(client, CHECKPOINT_SCRIPT, cp, [G, 'w1:1', '42'])).toBe('OK');
    expect(await cluster.get(checkpointKey(PREFIX, G, 0))).toBe('42');
    await expect(runScript(client, CHECKPOINT_SCRIPT, cp, [G, 'w2:2', '43'])).rejects.toThrow(
      /ARBOR_FENCED/,
    );
    await expect(runScript(client, CHECKPOINT_SCRIPT, cp, ['g0', 'w1:1', '43'])).rejects.toThrow(
      /ARBOR_GENERATION/,
    );
    expect(await runScript(client, RELEASE, [leaseKey(PREFIX, 0)], ['w1:1'])).toBe(1);
  });

  it('a script over two slots is refused by the cluster (CROSSSLOT) and by runScript first', async () => {
    const keys = [`${conv('t1', 'c1')}:conv`, `${PREFIX}:${G}:{t1}:list`];
    expect(slotOf(keys[0])).not.toBe(slotOf(keys[1]));
    const script = "redis.call('SET', KEYS[1], '1'); redis.call('SET', KEYS[2], '1'); return 1";
    await expect(
      cluster.sendCommand(keys[0], false, ['EVAL', script, '2', ...keys]),
    ).rejects.toThrow(/CROSSSLOT/);
    await expect(runScript(viaCluster(), script, keys, [])).rejects.toThrow(/2 hash slots/);
  });
};

describeWithRedisCluster(
  'Redis Cluster: single-slot scripts',
  'the Redis Cluster suite (single-slot scripts on a real 3-master cluster)',
  suite,
);
