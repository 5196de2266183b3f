/**
 * The scaled shape on a real Redis Cluster, as real processes: a 3-master cluster of this file's
 * own (free ports, its own temp dir, torn down after), two `arbor serve --projector off` replicas
 * (A and B) and one `arbor project` worker over one SQLite log directory, every process
 * configured with `REDIS_CLUSTER_URLS` only.
 * - Writes on A, reads on B answer as the embedded single process does (the scaled suite's
 *   scenario); a context built on either replica is the same; the read models' keys sit on every
 *   master and equal a rebuild from the log.
 * - A live stream on B receives the turn committed on A (pub/sub across the cluster's nodes).
 * - The admin rebuild switches the generation; no key of the old one is left on any master.
 * - An erasure on A: B answers 410, and no master holds a key of the conversation (but the
 *   content-free `:erased` marker) or any key or value with its content.
 * Every master is asked directly (a plain client per node), not through the code under test.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connectRedis, controlTag, generationKey, type RedisClient } from '@arbor/projections';
import {
  describeWithRedisCluster,
  type RedisClusterServers,
  startRedisCluster,
} from '@arbor/projections/testing/redis-cluster';
import { createClient } from 'redis';
import { exchange } from './support/api';
import { redisKeysWith } from './support/erasure';
import { ADMIN_KEY } from './support/harness';
import {
  call,
  clusterEnv,
  type Proc,
  type Replica,
  spawnReplica,
  spawnShape,
} from './support/scaled';
import { directRead, liveAndRebuildOf, normalizer, scenario } from './support/scaled-scenario';
import { openSse } from './support/sse';

jest.setTimeout(300_000);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const CONTEXT = { provider: 'anthropic', model: 'claude-sonnet-4-5', budgetTokens: 200_000 };

describeWithRedisCluster(
  'scaled shape on a Redis Cluster: two API replicas + a projector worker, REDIS_CLUSTER_URLS',
  'the Redis Cluster process suite (replicas and a worker against a real 3-master cluster)',
  () => {
    let servers: RedisClusterServers;
    let env: Record<string, string>;
    let dataDir: string;
    let embeddedDir: string;
    let a: Replica;
    let b: Replica;
    const procs: Proc[] = [];
    let client: RedisClient;
    let key = '';

    /** The keys matching `pattern` on each master, asked of that node alone. */
    const keysPerMaster = async (pattern: string): Promise<string[][]> => {
      const out: string[][] = [];
      for (const url of servers.urls) {
        const node = createClient({ url });
        await node.connect();
        try {
          const keys: string[] = [];
          for await (const batch of node.scanIterator({ MATCH: pattern, COUNT: 500 }))
            keys.push(...batch);
          out.push(keys);
        } finally {
          await node.close();
        }
      }
      return out;
    };

    /** Retries `probe` until it holds (projection and cleanup are asynchronous), then once more. */
    const eventually = async <T>(probe: () => Promise<T>, holds: (v: T) => boolean) => {
      for (let i = 0; i < 200; i++) {
        const v = await probe();
        if (holds(v)) return v;
        await sleep(100);
      }
      return probe();
    };

    const settled = () =>
      eventually(
        () => liveAndRebuildOf(client, env.ARBOR_REDIS_PREFIX, dataDir),
        (r) => r.live === r.rebuilt,
      );

    beforeAll(async () => {
      servers = await startRedisCluster();
      env = clusterEnv(servers.urls);
      dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-cluster-e2e-'));
      embeddedDir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-cluster-e2e-embedded-'));
      client = await connectRedis({ kind: 'cluster', urls: servers.urls });
      ({ a, b } = await spawnShape(dataDir, env, procs));
      const tenant = await call(a.url, 'POST', '/v1/tenants', ADMIN_KEY, {});
      key = tenant.body.apiKey as string;
    });

    afterAll(async () => {
      for (const p of procs) await p.kill().catch(() => undefined);
      await client?.close().catch(() => undefined);
      await servers?.stop();
      for (const d of [dataDir, embeddedDir]) if (d) fs.rmSync(d, { recursive: true, force: true });
    });

    it('writes on A, reads on B answer as the embedded process does; a context is the same on both replicas; the read models sit on every master and equal a rebuild', async () => {
      const embedded = await spawnReplica(
        embeddedDir,
        { REDIS_URL: '', REDIS_CLUSTER_URLS: '', LOG_LEVEL: 'warn' },
        true,
      );
      procs.push(embedded);
      const expected = await scenario(embedded.url, embedded.url, directRead);
      await embedded.kill();
      const got = await scenario(a.url, b.url, directRead);
      const nA = normalizer();
      const nB = normalizer();
      expect(got.answers.map((x) => nB(x, got.secrets))).toEqual(
        expected.answers.map((x) => nA(x, expected.secrets)),
      );
      expect(got.answers.find((x) => x.startsWith('messages 200'))).toContain('answer 1');
      expect(got.answers.find((x) => x.startsWith('list 200'))).toContain('conv-b');

      // The scenario's tenant is its own; this file's tenant writes on A and builds on both.
      expect((await call(a.url, 'POST', '/v1/conversations', key, { id: 'ctx' })).status).toBe(201);
      for (const label of ['1', '2', '3']) {
        const t = await call(a.url, 'POST', '/v1/conversations/ctx/turns', key, {
          turnId: `ctx-${label}`,
          messages: exchange(label),
        });
        expect([200, 201]).toContain(t.status);
      }
      const onB = await call(b.url, 'POST', '/v1/conversations/ctx/context', key, CONTEXT);
      const onA = await call(a.url, 'POST', '/v1/conversations/ctx/context', key, CONTEXT);
      expect(onB.status).toBe(200);
      expect(onB.text).toContain('answer 3');
      expect(onA.status).toBe(200);
      expect(JSON.stringify(onA.body.body)).toBe(JSON.stringify(onB.body.body));
      expect(onA.body.receipt.prefixHash).toBe(onB.body.receipt.prefixHash);

      const generation = (await client.get(generationKey(env.ARBOR_REDIS_PREFIX))) as string;
      // A cluster in earnest: every master holds keys of the live generation. Which master a
      // conversation lands on depends on its (random) tenant id: more conversations until each
      // master has some (three masters, a new slot per conversation: a few suffice).
      let spread = await keysPerMaster(`${env.ARBOR_REDIS_PREFIX}:${generation}:*`);
      for (let i = 0; i < 64 && spread.some((ks) => ks.length === 0); i++) {
        const made = await call(a.url, 'POST', '/v1/conversations', key, { id: `spread-${i}` });
        expect(made.status).toBe(201);
        // Read on B: it waits for the projection of this caller's write.
        expect((await call(b.url, 'GET', `/v1/conversations/spread-${i}`, key)).status).toBe(200);
        spread = await keysPerMaster(`${env.ARBOR_REDIS_PREFIX}:${generation}:*`);
      }
      expect(spread.map((ks) => ks.length > 0)).toEqual(servers.urls.map(() => true));
      const { live, rebuilt } = await settled();
      expect(live.length).toBeGreaterThan(1000);
      expect(live).toBe(rebuilt);
      // The dump (through the factory's SCAN) holds every content key of every master.
      const base = `${env.ARBOR_REDIS_PREFIX}:${generation}`;
      const content = (await keysPerMaster(`${base}:*`))
        .flat()
        .filter((k) => !k.includes(controlTag(env.ARBOR_REDIS_PREFIX)) && !k.endsWith('}:fence'))
        .map((k) => k.slice(base.length))
        .sort();
      const dumped = live
        .split('\n\n')
        .map((part) => part.slice(0, part.indexOf('\n')))
        .sort();
      expect(dumped).toEqual(content);
    });

    it('a live stream on B receives the turn committed on A, in order', async () => {
      expect((await call(a.url, 'POST', '/v1/conversations', key, { id: 'live' })).status).toBe(
        201,
      );
      const stream = await openSse(b.url, '/v1/conversations/live/stream', key);
      expect(stream.status).toBe(200);
      try {
        const t = await call(a.url, 'POST', '/v1/conversations/live/turns', key, {
          turnId: 'live-1',
          messages: exchange('live'),
        });
        expect([200, 201]).toContain(t.status);
        const got: [string | undefined, string][] = [];
        for (let i = 0; i < 3; i++) {
          const f = await stream.next(undefined, 30_000);
          got.push([f.id, (JSON.parse(f.data as string) as { type: string }).type]);
        }
        expect(got).toEqual([
          ['1', 'MessageAppended'],
          ['2', 'MessageAppended'],
          ['3', 'TurnCommitted'],
        ]);
      } finally {
        stream.close();
      }
    });

    it('the admin rebuild on B switches the generation; no key of the old one is left on any master; the worker goes on in the new one', async () => {
      const prefix = env.ARBOR_REDIS_PREFIX;
      const before = (await client.get(generationKey(prefix))) as string;
      expect((await keysPerMaster(`${prefix}:${before}:*`)).flat().length).toBeGreaterThan(0);
      const rebuilt = await call(b.url, 'POST', '/v1/admin/projections/rebuild', ADMIN_KEY);
      expect(rebuilt.status).toBe(200);
      const after = await client.get(generationKey(prefix));
      expect(after).not.toBeNull();
      expect(after).not.toBe(before);
      expect(await keysPerMaster(`${prefix}:${before}:*`)).toEqual(servers.urls.map(() => []));
      const t = await call(a.url, 'POST', '/v1/conversations/ctx/turns', key, {
        turnId: 'ctx-after',
        messages: exchange('after rebuild'),
      });
      expect([200, 201]).toContain(t.status);
      const seen = await call(b.url, 'GET', '/v1/conversations/ctx/messages', key);
      expect(seen.status).toBe(200);
      expect(seen.text).toContain('answer after rebuild');
      const { live, rebuilt: fromLog } = await settled();
      expect(live).toBe(fromLog);
    });

    it('an erasure on A: B answers 410; no master holds a key of the conversation but its content-free marker, nor its content anywhere', async () => {
      const marker = `marker-${randomBytes(8).toString('hex')}`;
      const tenant = await call(a.url, 'POST', '/v1/tenants', ADMIN_KEY, { name: 'erasure' });
      const tKey = tenant.body.apiKey as string;
      const tId = tenant.body.id as string;
      const id = 'doomed';
      const route = `/v1/conversations/${id}`;
      const created = await call(a.url, 'POST', '/v1/conversations', tKey, {
        id,
        title: `title ${marker}`,
        metadata: { note: marker },
      });
      expect(created.status).toBe(201);
      for (const label of ['1', '2']) {
        const t = await call(a.url, 'POST', `${route}/turns`, tKey, {
          turnId: `e-${label}`,
          messages: exchange(`${marker} ${label}`),
        });
        expect([200, 201]).toContain(t.status);
      }
      const cp = await call(a.url, 'POST', `${route}/checkpoints`, tKey, { label: 'cp' });
      expect([200, 201]).toContain(cp.status);
      const failed = await call(a.url, 'POST', `${route}/failures`, tKey, {
        input: { messages: exchange(`failed ${marker}`) },
        error: { message: `boom ${marker}` },
      });
      expect(failed.status).toBe(201);
      expect((await call(b.url, 'GET', `${route}/messages`, tKey)).text).toContain(marker);
      // A guard: the search finds the content where it is (the read models hold clear text).
      const tag = `*{${tId}:${id}}*`;
      const found = await eventually(
        async () =>
          (await Promise.all(servers.urls.map((u) => redisKeysWith(u, '*', marker)))).flat(),
        (ks) => ks.some((k) => k.endsWith(':bodies')),
      );
      expect(found.some((k) => k.endsWith(':bodies'))).toBe(true);
      expect((await keysPerMaster(tag)).flat().length).toBeGreaterThan(3);

      const del = await call(a.url, 'DELETE', `${route}?reason=gdpr`, tKey);
      expect([del.status, del.status === 200 ? '' : del.text]).toEqual([200, '']);
      expect((await call(b.url, 'GET', route, tKey)).status).toBe(410);
      expect((await call(b.url, 'GET', `${route}/messages`, tKey)).status).toBe(410);

      const left = await eventually(
        async () => (await keysPerMaster(tag)).flat().filter((k) => !k.endsWith(':erased')),
        (ks) => ks.length === 0,
      );
      expect(left).toEqual([]);
      const traces = await eventually(
        async () =>
          (await Promise.all(servers.urls.map((u) => redisKeysWith(u, '*', marker)))).flat(),
        (ks) => ks.length === 0,
      );
      expect(traces).toEqual([]);
      // What is left is the marker the projector keeps so a replay never lists it again.
      expect((await keysPerMaster(tag)).flat().length).toBeGreaterThan(0);
    });
  },
);
