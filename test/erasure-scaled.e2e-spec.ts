/**
 * Erasure in the scaled shape, proved on the files and on Redis: two `arbor serve --projector
 * off` replicas and an `arbor project` worker over one log directory and a redis-server of this
 * file's own. A conversation carries a unique marker in every kind of content; `DELETE` on
 * replica A; then no file under the data dir (after a WAL checkpoint) and no Redis key or value
 * (every key of the server, every generation) holds the marker or its base64 form, replica B
 * answers 410 at once (also the routes it had cached), another tenant gets 404, `arbor verify`
 * passes, and the other conversations read byte for byte as before. The same for a tenant.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import {
  type FakeProvider,
  type RecordedRequest,
  startFakeProvider,
} from '../libs/context/src/summary/testing/fake-provider';
import { assistant, type Client, clientFor, user } from './support/api';
import {
  callerFor,
  checkpointAll,
  fakeSummarizerEnv,
  filesWith,
  redisKeysWith,
  seedMarked,
  snapshotOf,
} from './support/erasure';
import { ADMIN_KEY, type Harness } from './support/harness';
import { revokedKeysHearNothing } from './support/revocation';
import {
  describeWithRedisServer,
  type Proc,
  type RedisServer,
  type Replica,
  scaledEnv,
  spawnShape,
  startRedisServer,
} from './support/scaled';

jest.setTimeout(600_000);

const KEY = 'sk-ant-test-erasure-scaled-key';
const ROOT = path.resolve(__dirname, '..');

/** A client of one replica (the api helpers take a Harness for its `call`). */
const clientOf = (replica: Replica, key: string): Client =>
  clientFor({ call: callerFor(replica.url) } as unknown as Harness, key);

const newTenant = async (replica: Replica, name: string): Promise<{ id: string; key: string }> => {
  const r = await callerFor(replica.url)('POST', '/v1/tenants', { key: ADMIN_KEY, body: { name } });
  expect(r.status).toBe(201);
  return { id: r.body.id as string, key: r.body.apiKey as string };
};

describeWithRedisServer('erasure in the scaled shape (replicas, worker, Redis)', () => {
  let redis: RedisServer;
  let fake: FakeProvider;
  let env: Record<string, string>;
  let dataDir: string;
  let a: Replica;
  let b: Replica;
  const procs: Proc[] = [];

  /** Files under the data dir (WAL checkpointed first) and every key of this Redis. */
  const tracesOf = async (marker: string): Promise<string[]> => {
    checkpointAll(dataDir);
    return [...filesWith(dataDir, marker), ...(await redisKeysWith(redis.url, '*', marker))];
  };

  const arbor = (...args: string[]) =>
    promisify(execFile)(
      process.execPath,
      ['-r', '@swc-node/register', path.join(ROOT, 'apps/cli/src/main.ts'), ...args],
      { cwd: ROOT, env: { ...process.env, ...env, ARBOR_DATA_DIR: dataDir, LOG_LEVEL: 'silent' } },
    );

  beforeAll(async () => {
    fake = await startFakeProvider({
      apiKey: KEY,
      summarize: (n: number, request: RecordedRequest) => {
        const m = /marker-[0-9a-f]+/.exec(request.user)?.[0] ?? 'none';
        return `Summary ${n} about ${m}.`;
      },
      provider: 'anthropic',
      contextWindowTokens: 8192,
    });
    redis = await startRedisServer();
    env = {
      ...scaledEnv(redis.url),
      ...fakeSummarizerEnv(fake.url, KEY),
    };
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-erasure-scaled-'));
    ({ a, b } = await spawnShape(dataDir, env, procs));
  });

  afterAll(async () => {
    for (const p of procs) await p.kill().catch(() => undefined);
    await redis?.kill();
    await fake?.close();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('DELETE on replica A: no trace in any file or Redis key; B answers 410 at once, another tenant 404; verify passes; others unchanged', async () => {
    const marker = `marker-${randomBytes(8).toString('hex')}`;
    const other = `marker-${randomBytes(8).toString('hex')}`;
    const t1 = await newTenant(a, 'one');
    const t2 = await newTenant(a, 'two');
    const onA = clientOf(a, t1.key);
    const onB = clientOf(b, t1.key);
    const twoOnB = clientOf(b, t2.key);
    const id = await seedMarked(onA, marker);
    const kept = await onA.start({ title: `kept ${other}` });
    await onA.turn(kept, null, [user(`keep ${other}`), assistant('ok')]);
    const keptOfTwo = await clientOf(a, t2.key).start({ title: `two ${other}` });
    await clientOf(a, t2.key).turn(keptOfTwo, null, [user(`two ${other}`), assistant('ok')]);

    // Replica B reads it (fills its caches: write-side state, context, key cache) and builds a
    // context of its own (its page and token caches).
    expect((await onB.get(onB.conv(id, '/messages'))).text).toContain(marker);
    const ctx = await onB.post(onB.conv(id, '/context'), {
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      budgetTokens: 200_000,
    });
    expect(ctx.status).toBe(200);
    expect((await onB.get(onB.conv(id, '/events'))).text).not.toContain('[erased]');
    const before = { kept: await snapshotOf(onB, kept), two: await snapshotOf(twoOnB, keptOfTwo) };

    // A guard: the search finds the marker where it is (the read models in Redis hold clear
    // text), so "not found" afterwards means something. The log holds it sealed only.
    const found = await tracesOf(marker);
    expect(found.length).toBeGreaterThan(0);
    expect(found.every((k) => k.startsWith(env.ARBOR_REDIS_PREFIX))).toBe(true);
    const verified = await arbor('verify');
    expect(verified.stdout).toMatch(/^OK: /);

    const del = await callerFor(a.url)('DELETE', onA.conv(id) + '?reason=gdpr', { key: t1.key });
    expect([del.status, del.status === 200 ? '' : a.output().slice(-4000)]).toEqual([200, '']);
    expect(del.body).toMatchObject({ conversationId: id, reason: 'gdpr', erasedForks: [] });

    // Replica B at once, no waiting: every route 410, the audit log structure only.
    for (const u of ['', '/messages', '/tree', '/checkpoints', '/retry', '/export?format=jsonl']) {
      const r = await onB.get(onB.conv(id, u));
      expect([u, r.status, r.body?.code]).toEqual([u, 410, 'conversation_erased']);
    }
    const again = await onB.post(onB.conv(id, '/context'), {
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      budgetTokens: 200_000,
    });
    expect(again.status).toBe(410);
    const events = await onB.get(onB.conv(id, '/events?limit=1000'));
    expect(events.status).toBe(200);
    expect(events.text).not.toContain(marker);
    expect(events.text).toContain('[erased]');
    const replay = await onB.get(onB.conv(id, '/replay?revision=5'));
    expect(replay.status).toBe(200);
    expect(replay.text).not.toContain(marker);
    // Another tenant: 404 for that id, on either replica.
    expect((await twoOnB.get(twoOnB.conv(id))).status).toBe(404);
    expect((await clientOf(a, t2.key).get(twoOnB.conv(id))).status).toBe(404);

    expect(await tracesOf(marker)).toEqual([]);
    expect((await tracesOf(other)).length).toBeGreaterThan(0);
    expect((await arbor('verify')).stdout).toMatch(/^OK: /);
    expect(await snapshotOf(onB, kept)).toEqual(before.kept);
    expect(await snapshotOf(twoOnB, keptOfTwo)).toEqual(before.two);
    // And through A too (its own caches were emptied by its own erasure).
    expect((await onA.get(onA.conv(id, '/messages'))).status).toBe(410);
    expect(await snapshotOf(clientOf(a, t1.key), kept)).toEqual(before.kept);
  });

  it('DELETE /v1/tenants/{id} on replica A: nothing of the tenant in any file or Redis key; B reads nothing; other tenants unchanged', async () => {
    const marker = `marker-${randomBytes(8).toString('hex')}`;
    const leaving = await newTenant(a, 'leaving');
    const staying = await newTenant(a, 'staying');
    const onA = clientOf(a, leaving.key);
    const onB = clientOf(b, leaving.key);
    const one = await onA.start({ title: marker });
    await onA.turn(one, null, [user(`first ${marker}`), assistant(`reply ${marker}`)]);
    const two = await onA.start();
    await onA.turn(two, null, [user(`second ${marker}`), assistant('ok')]);
    const fork = await onA.post(onA.conv(two, '/forks'), {});
    expect(fork.status).toBe(201);
    expect((await onB.get(onB.conv(one, '/messages'))).text).toContain(marker);
    const stay = clientOf(b, staying.key);
    const stayId = await clientOf(a, staying.key).start({ title: 'stays' });
    await clientOf(a, staying.key).turn(stayId, null, [user('stays'), assistant('ok')]);
    const keptStay = await snapshotOf(stay, stayId);
    expect((await tracesOf(marker)).length).toBeGreaterThan(0);

    const r = await callerFor(a.url)('DELETE', `/v1/tenants/${leaving.id}?reason=left`, {
      key: ADMIN_KEY,
    });
    expect([r.status, r.status === 200 ? '' : a.output().slice(-4000)]).toEqual([200, '']);
    expect(r.body).toEqual({ tenantId: leaving.id, conversations: 3, erased: 3, reason: 'left' });

    // B: the conversations are gone at once (410, or 401 once B's directory has seen the
    // revocation); never content.
    for (const c of [one, two, fork.body.id as string]) {
      const got = await onB.get(onB.conv(c, '/messages'));
      expect([401, 410]).toContain(got.status);
      expect(got.text).not.toContain(marker);
    }
    expect(await tracesOf(marker)).toEqual([]);
    expect((await arbor('verify')).stdout).toMatch(/^OK: /);
    expect(await snapshotOf(stay, stayId)).toEqual(keptStay);
  });

  it('a tenant made or given a retention policy on replica A a moment ago is erased or swept through replica B', async () => {
    // B's directory is its own fold of the tenant streams: it must catch up before it answers.
    const admin = callerFor(b.url);
    for (let i = 0; i < 5; i++) {
      const made = await newTenant(a, `short-lived ${i}`);
      const gone = await admin('DELETE', `/v1/tenants/${made.id}?reason=moment`, {
        key: ADMIN_KEY,
      });
      expect([gone.status, gone.body.tenantId]).toEqual([200, made.id]);
      const before = await admin('POST', '/v1/admin/retention/sweep', { key: ADMIN_KEY });
      const kept = await newTenant(a, `kept ${i}`);
      const set = await callerFor(a.url)('PUT', `/v1/tenants/${kept.id}/retention`, {
        key: ADMIN_KEY,
        body: { retentionDays: 30 },
      });
      expect(set.status).toBe(200);
      const after = await admin('POST', '/v1/admin/retention/sweep', { key: ADMIN_KEY });
      expect([before.status, after.status]).toEqual([200, 200]);
      // The sweep on B counts the policy just set on A.
      expect(after.body.tenants).toBe((before.body.tenants as number) + 1);
    }
  });

  it('a key revoked (or its tenant erased) on replica A closes its live streams on replica B', async () => {
    await revokedKeysHearNothing(a.url, b.url);
  });
});
