/**
 * Operating the scaled shape, as real processes: two `arbor serve --projector off` replicas (A
 * and B) and `arbor project` workers over one SQLite log and a redis-server of this file's own.
 * - Live streams on any replica: a stream on B is woken by the worker (a third process) that
 *   projected the turns committed on A, and a reconnect elsewhere with Last-Event-ID gets exactly
 *   the rest.
 * - Projector lag in /metrics of an API replica: it rises while the only worker is down (kill -9)
 *   and falls to 0 after another worker took the partitions over.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { exchange } from './support/api';
import { ADMIN_KEY } from './support/harness';
import { openSse, type SseClient, type SseFrame } from './support/sse';
import {
  call,
  describeWithRedisServer,
  type Proc,
  type RedisServer,
  type Replica,
  scaledEnv,
  spawnShape,
  spawnWorker,
  startRedisServer,
} from './support/scaled';

jest.setTimeout(240_000);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const data = (f: SseFrame) => JSON.parse(f.data as string) as { revision: number; type: string };

/** The next `n` events of a stream, checking that each frame's id is its revision. */
const take = async (s: SseClient, n: number): Promise<number[]> => {
  const got: number[] = [];
  for (let i = 0; i < n; i++) {
    const f = await s.next(undefined, 30_000);
    const e = data(f);
    expect(f.id).toBe(String(e.revision));
    got.push(e.revision);
  }
  return got;
};

const range = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** The samples of one metric family, by its `partition` label. */
const byPartition = (text: string, name: string): Map<string, number> => {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)\{partition="([^"]*)"\} (\S+)$/.exec(line);
    if (m !== null && m[1] === name) out.set(m[2], Number(m[3]));
  }
  return out;
};

describeWithRedisServer(
  'scaled shape, operated: live streams on any replica, projector lag',
  () => {
    let redis: RedisServer;
    let env: Record<string, string>;
    let dataDir: string;
    let a: Replica;
    let b: Replica;
    const procs: Proc[] = [];
    let key = '';

    beforeAll(async () => {
      redis = await startRedisServer();
      env = scaledEnv(redis.url);
      dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-scaled-ops-'));
      ({ a, b } = await spawnShape(dataDir, env, procs));
      const tenant = await call(a.url, 'POST', '/v1/tenants', ADMIN_KEY, {});
      key = tenant.body.apiKey as string;
    });

    afterAll(async () => {
      for (const p of procs) await p.kill().catch(() => undefined);
      await redis?.kill();
      if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    });

    /** A turn with a turnId, so the one retry after a dropped keep-alive socket lands once. */
    const turn = async (base: string, id: string, label: string) => {
      const body = { turnId: `${id}-${label}`, messages: exchange(label) };
      const route = `/v1/conversations/${id}/turns`;
      const r = await call(base, 'POST', route, key, body).catch(() =>
        call(base, 'POST', route, key, body),
      );
      expect([200, 201]).toContain(r.status);
    };

    it('a stream on a --projector off replica receives the turns committed on another, in order, once; Last-Event-ID resumes on another replica with exactly the rest', async () => {
      const id = 'live';
      expect((await call(a.url, 'POST', '/v1/conversations', key, { id })).status).toBe(201);
      // Opened on B after the create (revision 0): what follows is 1, 2, 3 per turn.
      const onB = await openSse(b.url, `/v1/conversations/${id}/stream`, key);
      expect(onB.status).toBe(200);
      await turn(a.url, id, '1');
      await turn(a.url, id, '2');
      expect(await take(onB, 6)).toEqual(range(1, 6));
      await turn(a.url, id, '3');
      // The next three are exactly the third turn's: nothing sent twice, nothing skipped.
      const third = [];
      for (let i = 0; i < 3; i++) third.push(data(await onB.next(undefined, 30_000)));
      expect(third.map((e) => [e.revision, e.type])).toEqual([
        [7, 'MessageAppended'],
        [8, 'MessageAppended'],
        [9, 'TurnCommitted'],
      ]);
      onB.close();

      // Missed while no stream was open, then resumed on A after the last id B received.
      await turn(a.url, id, '4');
      const onA = await openSse(a.url, `/v1/conversations/${id}/stream`, key, {
        'last-event-id': '9',
      });
      expect(onA.status).toBe(200);
      expect(await take(onA, 3)).toEqual(range(10, 12));
      // Then live, committed on B this time: the next events are the new turn's, no repeat.
      await turn(b.url, id, '5');
      expect(await take(onA, 3)).toEqual(range(13, 15));
      onA.close();
      const events = await call(b.url, 'GET', `/v1/conversations/${id}/events`, key);
      expect(events.status).toBe(200);
      expect(events.text).toContain('answer 5');
    });

    it('/metrics of an API replica: projector lag per partition rises while the only worker is down (kill -9) and falls to 0 after another takes over; lease changes count the takeover', async () => {
      const scrape = async (base: string) => {
        const r = await call(base, 'GET', '/metrics', ADMIN_KEY);
        expect(r.status).toBe(200);
        return {
          events: byPartition(r.text, 'arbor_projector_lag_events'),
          seconds: byPartition(r.text, 'arbor_projector_lag_seconds'),
          leases: byPartition(r.text, 'arbor_projector_lease_changes_total'),
        };
      };
      const caughtUp = async () => {
        for (let i = 0; i < 600; i++) {
          const m = await scrape(b.url);
          if (m.events.size === 4 && [...m.events.values()].every((v) => v === 0)) return m;
          await sleep(100);
        }
        return scrape(b.url);
      };
      const id = 'lagged';
      expect((await call(a.url, 'POST', '/v1/conversations', key, { id })).status).toBe(201);
      const before = await caughtUp();
      expect([...before.events.keys()].sort()).toEqual(['0', '1', '2', '3']);
      expect([...before.events.values()]).toEqual([0, 0, 0, 0]);
      expect([...before.seconds.values()]).toEqual([0, 0, 0, 0]);
      const leasesBefore = [...before.leases.values()].reduce((x, y) => x + y, 0);
      // w1 took every partition once.
      expect(leasesBefore).toBeGreaterThanOrEqual(4);

      await procs[0].kill(); // SIGKILL: the leases are left to expire
      const turns = 5;
      for (let i = 0; i < turns; i++) await turn(a.url, id, `lag${i}`);
      await sleep(100);
      const down = await scrape(b.url);
      expect(down.events.size).toBe(4);
      for (const [partition, lag] of down.events) {
        expect({ partition, atLeastTurns: lag >= turns }).toEqual({
          partition,
          atLeastTurns: true,
        });
      }
      for (const [partition, s] of down.seconds) {
        expect({ partition, behind: s > 0 }).toEqual({ partition, behind: true });
      }
      // A's /metrics reads the same Redis checkpoints: the same lag.
      const onA = await scrape(a.url);
      expect([...onA.events.values()].every((v) => v >= turns)).toBe(true);

      procs.push(await spawnWorker(dataDir, env, 'w2'));
      const after = await caughtUp();
      expect([...after.events.values()]).toEqual([0, 0, 0, 0]);
      expect([...after.seconds.values()]).toEqual([0, 0, 0, 0]);
      const leasesAfter = [...after.leases.values()].reduce((x, y) => x + y, 0);
      expect(leasesAfter).toBeGreaterThanOrEqual(leasesBefore + 4);
      const read = await call(b.url, 'GET', `/v1/conversations/${id}/messages`, key);
      expect(read.status).toBe(200);
      expect(read.text).toContain(`answer lag${turns - 1}`);
    });
  },
);
