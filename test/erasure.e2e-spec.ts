/**
 * Erasure by crypto-shredding, proved on the files: a conversation carries a unique marker in
 * every kind of content (text, tool input, tool result, thinking, an image's bytes, a failed
 * turn, a summary, a snapshot page's source text, its title); after `DELETE` no file under the
 * data directory holds the marker or its base64 form, the hash chain verifies before and after,
 * and the other conversations (and the other tenant) read byte for byte as before.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { verifyStore } from '@arbor/audit';
import { auditSecretOf, createEventStore, ErasureService } from '@arbor/application';
import {
  type FakeProvider,
  type RecordedRequest,
  startFakeProvider,
} from '../libs/context/src/summary/testing/fake-provider';
import { assistant, type Client, clientFor, user } from './support/api';
import {
  fakeSummarizerEnv,
  filesWith,
  redisKeysWith,
  seedMarked as seed,
  snapshotOf,
} from './support/erasure';
import { ADMIN_KEY, type Harness, startHarness } from './support/harness';

const KEY = 'sk-ant-test-erasure-key';

/** Files and Redis keys (under the harness's prefix) holding the marker. */
const tracesOf = async (h: Harness, marker: string): Promise<string[]> => [
  ...filesWith(h.dataDir, marker),
  ...(h.config.redis?.kind !== 'node'
    ? []
    : await redisKeysWith(h.config.redis.url, `${h.config.redisPrefix}:*`, marker)),
];

const verifyLog = async (h: Harness) => {
  const store = createEventStore(h.config);
  try {
    return await verifyStore(store, auditSecretOf(h.config));
  } finally {
    await store.close();
  }
};

describe('erasure (crypto-shredding), proved on the files', () => {
  let h: Harness;
  let fake: FakeProvider;
  let a: Client;
  let b: Client;
  let tenantB: string;

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
    h = await startHarness(fakeSummarizerEnv(fake.url, KEY));
    a = clientFor(h, (await h.createTenant('a')).apiKey);
    const tb = await h.createTenant('b');
    tenantB = tb.id;
    b = clientFor(h, tb.apiKey);
  }, 300_000);
  afterAll(async () => {
    await h?.destroy();
    await fake?.close();
  });

  it('leaves no trace of the marker in any file; 410 for the owner, 404 for others; the chain verifies', async () => {
    const marker = `marker-${randomBytes(8).toString('hex')}`;
    const other = `marker-${randomBytes(8).toString('hex')}`;
    const id = await seed(a, marker);
    const keptA = await a.start({ title: `kept ${other}` });
    await a.turn(keptA, null, [user(`keep ${other}`), assistant('ok')]);
    // Tenant B uses the same conversation id.
    await b.put(b.conv(id), { title: 'b' });
    await b.turn(id, null, [user(`tenant b ${other}`), assistant('ok')]);
    const beforeA = await snapshotOf(a, keptA);
    const beforeB = await snapshotOf(b, id);

    // The marker is sealed in the log, but in clear in the read models before the erasure.
    // (A guard: the search does find it where it is, so "not found" later means something.)
    const before = await tracesOf(h, marker);
    expect(before.length).toBeGreaterThan(0);
    expect(
      before.every((f) => f.startsWith('readmodels') || f.startsWith(h.config.redisPrefix)),
    ).toBe(true);
    expect((await verifyLog(h)).ok).toBe(true);

    const del = await h.call('DELETE', a.conv(id) + '?reason=gdpr%20request', { key: a.key });
    expect(del.status).toBe(200);
    expect(del.body).toMatchObject({
      conversationId: id,
      reason: 'gdpr request',
      keptForks: [],
      erasedForks: [],
    });

    for (const u of [
      '',
      '/messages',
      '/tree',
      '/checkpoints',
      '/retry',
      '/export?format=markdown',
    ]) {
      const r = await a.get(a.conv(id, u));
      expect([u, r.status, r.body?.code]).toEqual([u, 410, 'conversation_erased']);
    }
    const turn = await a.post(a.conv(id, '/turns'), { messages: [user('again'), assistant('no')] });
    expect(turn.status).toBe(410);
    expect((await h.call('DELETE', a.conv(id), { key: a.key })).status).toBe(410);
    // Another tenant: its own conversation of that id is untouched; an id only A had is 404.
    const bGet = await b.get(b.conv(id));
    expect(bGet.status).toBe(200);
    const onlyA = await a.start();
    await h.call('DELETE', a.conv(onlyA), { key: a.key });
    expect((await b.get(b.conv(onlyA))).status).toBe(404);
    expect((await a.get(a.conv(onlyA))).status).toBe(410);
    // The audit log keeps the structure: every event, ids and roles, content `[erased]`.
    const events = await a.events(id);
    expect(events.length).toBeGreaterThan(40);
    expect(JSON.stringify(events)).not.toContain(marker);
    expect(events[events.length - 1]).toMatchObject({
      type: 'ConversationErased',
      data: { reason: 'gdpr request' },
    });
    const firstMessage = events.find((e) => e.type === 'MessageAppended');
    expect(firstMessage?.data).toMatchObject({
      message: { role: 'user', content: [{ type: 'text', text: '[erased]' }] },
    });
    const replay = await a.get(a.conv(id, '/replay?revision=5'));
    expect(replay.status).toBe(200);
    expect(replay.text).not.toContain(marker);
    expect(replay.text).toContain('[erased]');

    expect((await verifyLog(h)).ok).toBe(true);
    expect(await snapshotOf(a, keptA)).toEqual(beforeA);
    expect(await snapshotOf(b, id)).toEqual(beforeB);
    // Running: every file, WAL included (the erasure checkpointed the read models' WAL).
    expect(await tracesOf(h, marker)).toEqual([]);
    expect((await tracesOf(h, other)).length).toBeGreaterThan(0);
    await h.restart();
    expect(await tracesOf(h, marker)).toEqual([]);
    expect((await a.get(a.conv(id))).status).toBe(410);
    expect(await snapshotOf(a, keptA)).toEqual(beforeA);
  }, 600_000);

  it('a tenant: every conversation erased, keys revoked, nothing readable, other tenants unchanged', async () => {
    const marker = `marker-${randomBytes(8).toString('hex')}`;
    const t = await h.createTenant('leaving');
    const c = clientFor(h, t.apiKey);
    const one = await c.start({ title: marker });
    await c.turn(one, null, [user(`first ${marker}`), assistant(`reply ${marker}`)]);
    const two = await c.start();
    await c.turn(two, null, [user(`second ${marker}`), assistant('ok')]);
    const fork = await c.post(c.conv(two, '/forks'), {});
    expect(fork.status).toBe(201);
    const keptB = await snapshotOf(b, (await b.start({ title: 'b2' })) as string);
    const bIds = (await b.get('/v1/conversations')).text;

    const r = await h.call('DELETE', `/v1/tenants/${t.id}?reason=contract%20ended`, {
      key: ADMIN_KEY,
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      tenantId: t.id,
      conversations: 3,
      erased: 3,
      reason: 'contract ended',
    });
    expect((await c.get('/v1/conversations')).status).toBe(401);
    expect(await tracesOf(h, marker)).toEqual([]);
    expect((await verifyLog(h)).ok).toBe(true);
    expect((await b.get('/v1/conversations')).text).toBe(bIds);
    expect(keptB.length).toBeGreaterThan(0);
    void tenantB;
  }, 300_000);

  it('arbor erase and arbor sweep (embedded, same path): summaries, retention by idle time', async () => {
    const marker = `marker-${randomBytes(8).toString('hex')}`;
    const t = await h.createTenant('cli');
    const c = clientFor(h, t.apiKey);
    const one = await c.start({ title: marker });
    await c.turn(one, null, [user(`cli ${marker}`), assistant('ok')]);
    const idle = await c.start();
    await c.turn(idle, null, [user(`idle ${marker}`), assistant('ok')]);
    const pair = [await c.start(), await c.start()];
    for (const id of pair) await c.turn(id, null, [user(`pair ${marker}`), assistant('ok')]);
    const retention = await h.call('PUT', `/v1/tenants/${t.id}/retention`, {
      key: ADMIN_KEY,
      body: { retentionDays: 1 },
    });
    expect(retention.body).toEqual({ tenantId: t.id, retentionDays: 1 });
    // Nothing is idle yet: the sweep erases nothing.
    const none = await h.call('POST', '/v1/admin/retention/sweep', { key: ADMIN_KEY });
    expect(none.body.erased.filter((e: { tenantId: string }) => e.tenantId === t.id)).toEqual([]);
    await h.stop();
    const run = promisify(execFile);
    const arbor = (args: string[], env: Record<string, string> = {}) =>
      run(
        process.execPath,
        ['-r', '@swc-node/register', path.resolve(__dirname, '../apps/cli/src/main.ts'), ...args],
        {
          cwd: path.resolve(__dirname, '..'),
          env: { ...process.env, ARBOR_DATA_DIR: h.dataDir, LOG_LEVEL: 'silent', ...env },
        },
      );
    const erased = await arbor(['erase', one, '--tenant', t.id, '--reason', 'asked by user']);
    expect(erased.stdout).toContain(`erased ${one} (tenant ${t.id})`);
    expect(erased.stdout).toContain('asked by user');
    // Several ids: a bar on stderr, the summary once (stdout), not repeated by the bar's last line.
    const both = await arbor(['erase', ...pair, '--tenant', t.id]);
    const summary = 'erase: 2 conversation(s) erased, 0 fork(s) kept';
    const count = (text: string) => text.split(summary).length - 1;
    expect([count(both.stdout), count(both.stderr)]).toEqual([1, 0]);
    expect(both.stderr).toMatch(/^erase: done in \d+\.\d s$/m);
    for (const id of pair) expect(both.stdout).toContain(`erased ${id} (tenant ${t.id})`);
    // Nothing is idle yet; the idle case runs through the service below with a later clock.
    const swept = await arbor(['sweep']);
    expect(swept.stdout).toMatch(
      /retention: \d+ tenant\(s\) with a policy, [1-9]\d* conversation\(s\) checked, 0 conversation\(s\) erased/,
    );
    // The checking bar closes without repeating the count the summary carries.
    expect(swept.stderr).not.toMatch(/checked/);
    await h.restart();
    expect((await c.get(c.conv(one))).status).toBe(410);
    expect((await c.get(c.conv(idle))).status).toBe(200);
    for (const id of pair) expect((await c.get(c.conv(id))).status).toBe(410);
    const service = h.app.get(ErasureService);
    const later = await service.sweep({ now: new Date(Date.now() + 2 * 24 * 3600_000) });
    expect(later.erased).toContainEqual({ tenantId: t.id, conversationId: idle, idleDays: 2 });
    expect((await c.get(c.conv(idle))).status).toBe(410);
    const events = await c.events(idle);
    expect(events[events.length - 1].data).toMatchObject({
      reason: 'retention: idle more than 1 days',
    });
    expect(await tracesOf(h, marker)).toEqual([]);
  }, 300_000);
});
