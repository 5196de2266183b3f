/**
 * The scaled shape as real processes: two `arbor serve --projector off` replicas and `arbor
 * project` workers over one SQLite log directory and a redis-server of this file's own (so it
 * may be emptied, killed and restarted). Writes go to one replica, reads to the other; the
 * answers must equal the embedded single process's for the same calls, and the Redis read
 * models must equal a rebuild from the log byte for byte — also after each fault.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connectRedis, generationKey, leaseKey, type RedisClient } from '@arbor/projections';
import { exchange } from './support/api';
import { ADMIN_KEY } from './support/harness';
import {
  type Answer,
  call,
  describeWithRedisServer,
  type Proc,
  type RedisServer,
  type Replica,
  scaledEnv,
  spawnReplica,
  spawnWorker,
  startRedisServer,
} from './support/scaled';
import { directRead, liveAndRebuildOf, normalizer, scenario } from './support/scaled-scenario';

jest.setTimeout(240_000);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describeWithRedisServer(
  'scaled shape: two API replicas + projector workers over one log and Redis',
  () => {
    let redis: RedisServer;
    let env: Record<string, string>;
    let dataDir: string;
    let embeddedDir: string;
    let r1: Replica;
    let r2: Replica;
    const workers: Proc[] = [];
    const procs: Proc[] = [];
    let client: RedisClient;
    let key = '';

    /** The live generation's dump vs a rebuild from the log into a generation of the test's own. */
    const liveAndRebuild = () => liveAndRebuildOf(client, env.ARBOR_REDIS_PREFIX, dataDir);

    /** Reads until every partition has caught up with the log (a read of `key` succeeds). */
    const settled = async (base: string) => {
      for (let i = 0; i < 400; i++) {
        const a = await call(base, 'GET', '/v1/conversations', key).catch(() => null);
        if (a?.status === 200) {
          const { live, rebuilt } = await liveAndRebuild();
          if (live === rebuilt) return { live, rebuilt };
        }
        await sleep(100);
      }
      return liveAndRebuild();
    };

    beforeAll(async () => {
      redis = await startRedisServer();
      env = scaledEnv(redis.url);
      dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-scaled-'));
      embeddedDir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-scaled-embedded-'));
      client = await connectRedis({ kind: 'node', url: redis.url });
      // Started one after another: a loaded 2-core machine compiles each with swc on start.
      workers.push(await spawnWorker(dataDir, env, 'w1'));
      r1 = await spawnReplica(dataDir, env, false);
      r2 = await spawnReplica(dataDir, env, false);
      procs.push(r1, r2);
      const tenant = await call(r1.url, 'POST', '/v1/tenants', ADMIN_KEY, {});
      key = tenant.body.apiKey as string;
    });

    afterAll(async () => {
      for (const p of [...procs, ...workers]) await p.kill().catch(() => undefined);
      await client?.close().catch(() => undefined);
      await redis?.kill();
      for (const d of [dataDir, embeddedDir]) if (d) fs.rmSync(d, { recursive: true, force: true });
    });

    it('answers every call as the embedded single process does (writes on one replica, reads on the other); rebuild equals live in Redis', async () => {
      const embedded = await spawnReplica(embeddedDir, { REDIS_URL: '', LOG_LEVEL: 'warn' }, true);
      procs.push(embedded);
      const expected = await scenario(embedded.url, embedded.url, directRead);
      await embedded.kill();
      const got = await scenario(r1.url, r2.url, directRead);
      const nA = normalizer();
      const nB = normalizer();
      expect(got.answers.map((a) => nB(a, got.secrets))).toEqual(
        expected.answers.map((a) => nA(a, expected.secrets)),
      );
      // A sanity check that the comparison compares something: reads carried content.
      expect(got.answers.find((a) => a.startsWith('messages 200'))).toContain('answer 1');
      expect(got.answers.find((a) => a.startsWith('retry t1 elsewhere'))).toContain(
        '"replayed":true',
      );

      // The admin rebuild on one replica: a new generation, switched; the worker goes on with it.
      await call(r1.url, 'POST', '/v1/conversations', key, { id: 'after' });
      const before = await client.get(generationKey(env.ARBOR_REDIS_PREFIX));
      const rebuilt = await call(r2.url, 'POST', '/v1/admin/projections/rebuild', ADMIN_KEY);
      expect(rebuilt.status).toBe(200);
      expect(await client.get(generationKey(env.ARBOR_REDIS_PREFIX))).not.toBe(before);
      await call(r1.url, 'POST', '/v1/conversations/after/turns', key, { messages: exchange('x') });
      const seen = await call(r2.url, 'GET', '/v1/conversations/after/messages', key);
      expect(seen.status).toBe(200);
      expect(seen.text).toContain('answer x');
      const { live, rebuilt: fromLog } = await settled(r2.url);
      expect(live.length).toBeGreaterThan(1000);
      expect(live).toBe(fromLog);
    });

    it('kill -9 of an API replica under load: no acknowledged turn is lost; retries of the same turnId on the other replica are replayed', async () => {
      const convs = ['k0', 'k1', 'k2', 'k3'];
      for (const c of convs) await call(r1.url, 'POST', '/v1/conversations', key, { id: c });
      const sent: { conv: string; turnId: string; messages: unknown; acked: boolean }[] = [];
      let dead = false;
      let acks = 0;
      const load = async (conv: string) => {
        for (let i = 0; !dead; i++) {
          const s = {
            conv,
            turnId: `${conv}-t${i}`,
            messages: exchange(`${conv}-${i}`),
            acked: false,
          };
          sent.push(s);
          try {
            const a = await call(r1.url, 'POST', `/v1/conversations/${conv}/turns`, key, {
              turnId: s.turnId,
              messages: s.messages,
            });
            if (a.status !== 201) return;
            s.acked = true;
            acks++;
          } catch {
            return;
          }
        }
      };
      let loading = convs.length;
      const running = convs.map((c) => load(c).finally(() => loading--));
      const deadline = Date.now() + 60_000;
      while (acks < 20 && loading > 0 && Date.now() < deadline) await sleep(5);
      expect(acks).toBeGreaterThanOrEqual(20);
      await r1.kill();
      dead = true;
      await Promise.all(running);
      const acked = sent.filter((s) => s.acked);
      expect(acked.length).toBeGreaterThanOrEqual(20);
      for (const s of sent) {
        const a = await call(r2.url, 'POST', `/v1/conversations/${s.conv}/turns`, key, {
          turnId: s.turnId,
          messages: s.messages,
        });
        if (s.acked)
          expect({ turnId: s.turnId, status: a.status, replayed: a.body?.replayed }).toEqual({
            turnId: s.turnId,
            status: 200,
            replayed: true,
          });
        else expect([200, 201]).toContain(a.status);
      }
      // Every sent turn is now in each conversation's branch exactly once.
      for (const c of convs) {
        const page = await call(r2.url, 'GET', `/v1/conversations/${c}/messages?limit=1000`, key);
        expect(page.status).toBe(200);
        const texts = JSON.stringify(page.body);
        for (const s of sent.filter((x) => x.conv === c)) {
          expect(texts.split(`question ${s.conv}-${s.turnId.split('-t')[1]}"`).length - 1).toBe(1);
        }
      }
      r1 = await spawnReplica(dataDir, env, false);
      procs.push(r1);
    });

    it('kill -9 of the active projector worker: another takes its partitions over; the read models equal a rebuild', async () => {
      workers.push(await spawnWorker(dataDir, env, 'w2'));
      // Both hold leases (a fair split) before the kill.
      for (let i = 0; i < 100; i++) {
        const holders = new Set<string>();
        for (let p = 0; p < 4; p++) {
          const v = await client.get(leaseKey(env.ARBOR_REDIS_PREFIX, p));
          if (v) holders.add(v.split(':')[0]);
        }
        if (holders.size === 2) break;
        await sleep(200);
      }
      await workers[0].kill();
      const killedAt = Date.now();
      // Writes keep landing; a read that follows a write waits for the takeover.
      await call(r1.url, 'POST', '/v1/conversations', key, { id: 'during' });
      for (let i = 0; i < 5; i++) {
        const a = await call(r1.url, 'POST', '/v1/conversations/during/turns', key, {
          messages: exchange(`d${i}`),
        });
        expect(a.status).toBe(201);
      }
      let read: Answer | null = null;
      for (let i = 0; i < 100; i++) {
        read = await call(r2.url, 'GET', '/v1/conversations/during/messages', key);
        if (read.status === 200) break;
        expect(read.body.code).toBe('projection_lagging');
      }
      expect(read?.status).toBe(200);
      expect(read?.text).toContain('answer d4');
      // Within a bounded time: the lease (1.5 s) + a tick + slack for a loaded machine.
      expect(Date.now() - killedAt).toBeLessThan(30_000);
      for (let p = 0; p < 4; p++) {
        expect((await client.get(leaseKey(env.ARBOR_REDIS_PREFIX, p)))?.startsWith('w2:')).toBe(
          true,
        );
      }
      const { live, rebuilt } = await settled(r2.url);
      expect(live).toBe(rebuilt);
    });

    it('Redis emptied mid-run: reads answer 503 read_models_unavailable (never stale rows) while commits succeed, until rebuilt from the log', async () => {
      // No worker running while it is empty, so the unavailable window is observed for certain.
      await workers[1].kill(); // kill -9: its leases expire with the data anyway
      redis.cli('FLUSHALL');
      for (let i = 0; i < 3; i++) {
        const a = await call(r1.url, 'POST', '/v1/conversations/during/turns', key, {
          messages: exchange(`e${i}`),
        });
        expect(a.status).toBe(201);
        const read = await call(r2.url, 'GET', '/v1/conversations/during/messages', key);
        expect({ status: read.status, code: read.body?.code }).toEqual({
          status: 503,
          code: 'read_models_unavailable',
        });
      }
      workers.push(await spawnWorker(dataDir, env, 'w3'));
      let read: Answer | null = null;
      for (let i = 0; i < 300; i++) {
        read = await call(r2.url, 'GET', '/v1/conversations/during/messages', key);
        if (read.status === 200) break;
        expect(read.body.code).toMatch(/^(read_models_unavailable|projection_lagging)$/);
        await sleep(50);
      }
      // The first 200 already holds everything: the read models were rebuilt whole.
      expect(read?.status).toBe(200);
      expect(read?.text).toContain('answer e2');
      expect(read?.text).toContain('answer d0');
      const { live, rebuilt } = await settled(r2.url);
      expect(live).toBe(rebuilt);
    });

    it('Redis unreachable: commits succeed, reads answer 503 read_models_unavailable; after Redis is back the read models are rebuilt', async () => {
      // A conversation of its own, so this test runs alone too (`-t 'Redis unreachable'`).
      expect(
        (await call(r1.url, 'POST', '/v1/conversations', key, { id: 'unreachable' })).status,
      ).toBe(201);
      await redis.kill();
      for (let i = 0; i < 3; i++) {
        const a = await call(
          i % 2 ? r2.url : r1.url,
          'POST',
          '/v1/conversations/unreachable/turns',
          key,
          { messages: exchange(`u${i}`) },
        );
        expect(a.status).toBe(201);
        const read = await call(
          i % 2 ? r1.url : r2.url,
          'GET',
          '/v1/conversations/unreachable',
          key,
        );
        expect({ status: read.status, code: read.body?.code }).toEqual({
          status: 503,
          code: 'read_models_unavailable',
        });
      }
      await redis.start();
      let read: Answer | null = null;
      for (let i = 0; i < 400; i++) {
        read = await call(r1.url, 'GET', '/v1/conversations/unreachable/messages', key).catch(
          () => null,
        );
        if (read?.status === 200) break;
        await sleep(50);
      }
      expect(read?.status).toBe(200);
      expect(read?.text).toContain('answer u2');
      const { live, rebuilt } = await settled(r2.url);
      expect(live).toBe(rebuilt);
    });
  },
);
