import { assistant, clientFor, type Client, exchange, user } from './support/api';
import { filesWith } from './support/erasure';
import { ADMIN_KEY, type Harness, type HttpResult, startHarness } from './support/harness';

describe('Idempotency-Key on every creating POST', () => {
  let h: Harness;
  let a: Client;
  let b: Client;
  let id: string;
  let tip: string;
  beforeAll(async () => {
    h = await startHarness();
    a = clientFor(h, (await h.createTenant('a')).apiKey);
    b = clientFor(h, (await h.createTenant('b')).apiKey);
    id = await a.start();
    tip = (await a.turn(id, null, exchange('1'))).tip;
  });
  afterAll(async () => {
    await h.destroy();
  });

  const head = async () =>
    (await h.call('GET', '/v1/admin/log', { key: ADMIN_KEY })).body.position as string;
  const post = (c: Client | string, url: string, body: unknown, key: string) =>
    h.call('POST', url, {
      key: typeof c === 'string' ? c : c.key,
      body,
      headers: { 'idempotency-key': key },
    });

  /** Sends the request twice with one key: the second answers the first again and writes nothing. */
  const replays = async (c: Client | string, url: string, body: unknown, key: string) => {
    const first = await post(c, url, body, key);
    expect({ url, status: first.status < 300 }).toEqual({ url, status: true });
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const before = await head();
    const again = await post(c, url, body, key);
    expect(await head()).toBe(before);
    expect({ status: again.status, text: again.text }).toEqual({
      status: first.status,
      text: first.text,
    });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    return first;
  };

  it('each creating route answers a repeat with the first answer and appends nothing', async () => {
    await replays(a, '/v1/conversations', { title: 't' }, 'k-start');
    const turn = await replays(
      a,
      a.conv(id, '/turns'),
      { parentId: tip, messages: [user('q'), assistant('a')] },
      'k-turn',
    );
    tip = turn.body.tip as string;
    await replays(a, a.conv(id, '/forks'), {}, 'k-fork');
    await replays(a, a.conv(id, '/checkpoints'), { label: 'idem' }, 'k-checkpoint');
    await replays(a, a.conv(id, '/failures'), { input: 'i', error: 'e' }, 'k-failure');
  });

  it('an answer holding an API key is kept without it: its repeat is 409 secret_shown_once', async () => {
    const shownOnce = async (url: string, body: unknown, key: string) => {
      const first = await post(ADMIN_KEY, url, body, key);
      expect(first.status).toBe(201);
      const before = await head();
      const again = await post(ADMIN_KEY, url, body, key);
      expect(await head()).toBe(before);
      expect(again.status).toBe(409);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body.code).toBe('secret_shown_once');
      expect(again.body.keyId).toBe(first.body.keyId);
      expect(again.body).not.toHaveProperty('apiKey');
      expect(again.text).not.toContain(first.body.apiKey);
      return first;
    };
    const tenant = await shownOnce('/v1/tenants', { name: 'idem' }, 'k-tenant');
    const issued = await shownOnce(`/v1/tenants/${tenant.body.id}/keys`, {}, 'k-key');
    // No file of the data dir holds either key (the memo included), nor its secret part.
    for (const apiKey of [tenant.body.apiKey as string, issued.body.apiKey as string]) {
      const secret = apiKey.slice(`arb_${apiKey.split('_')[1]}_`.length);
      expect(secret.length).toBeGreaterThan(16);
      expect(filesWith(h.dataDir, secret)).toEqual([]);
    }
    // Revoking a key forgets the answers that issued the tenant's keys: a retry runs again.
    const revoked = await h.call(
      'DELETE',
      `/v1/tenants/${tenant.body.id}/keys/${issued.body.keyId}`,
      {
        key: ADMIN_KEY,
      },
    );
    expect(revoked.status).toBe(204);
    const rerun = await post(ADMIN_KEY, `/v1/tenants/${tenant.body.id}/keys`, {}, 'k-key');
    expect(rerun.status).toBe(201);
    expect(rerun.body.keyId).not.toBe(issued.body.keyId);
    // Erasing the tenant forgets them too: no retry answers a key for an erased tenant.
    await post(ADMIN_KEY, `/v1/tenants/${tenant.body.id}/keys`, { label: 'late' }, 'k-late');
    const erased = await h.call('DELETE', `/v1/tenants/${tenant.body.id}`, { key: ADMIN_KEY });
    expect(erased.status).toBe(200);
    for (const [body, key] of [
      [{}, 'k-key'],
      [{ label: 'late' }, 'k-late'],
    ] as const) {
      const late = await post(ADMIN_KEY, `/v1/tenants/${tenant.body.id}/keys`, body, key);
      expect([late.status, late.body.code]).toEqual([404, 'tenant_not_found']);
    }
    const recreated = await post(ADMIN_KEY, '/v1/tenants', { name: 'idem' }, 'k-tenant');
    expect(recreated.status).toBe(201);
    expect(recreated.body.id).not.toBe(tenant.body.id);
  });

  it('the same key with another body is 422 idempotency_key_reused, nothing appended', async () => {
    await post(a, '/v1/conversations', { title: 'one' }, 'k-reused');
    const before = await head();
    for (const [url, body] of [
      ['/v1/conversations', { title: 'two' }],
      [a.conv(id, '/forks'), {}],
    ] as const) {
      const r = await post(a, url, body, 'k-reused');
      expect(r.status).toBe(422);
      expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(r.body.code).toBe('idempotency_key_reused');
    }
    expect(await head()).toBe(before);
  });

  it('keys are scoped per tenant: another tenant with the same key gets its own answer', async () => {
    const mine = await post(a, '/v1/conversations', { title: 'x' }, 'k-shared');
    const theirs = await post(b, '/v1/conversations', { title: 'x' }, 'k-shared');
    expect(theirs.status).toBe(201);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.body.id).not.toBe(mine.body.id);
    expect((await b.get(b.conv(mine.body.id as string))).status).toBe(404);
  });

  it('50 identical concurrent forks with one key make one fork', async () => {
    const before = (await a.get('/v1/conversations?limit=1000')).body.items.length as number;
    const answers: HttpResult[] = await Promise.all(
      Array.from({ length: 50 }, () => post(a, a.conv(id, '/forks'), {}, 'k-50-forks')),
    );
    expect(new Set(answers.map((r) => r.status))).toEqual(new Set([201]));
    expect(new Set(answers.map((r) => r.text)).size).toBe(1);
    expect(answers.filter((r) => r.headers.get('idempotent-replayed') === 'true')).toHaveLength(49);
    const after = (await a.get('/v1/conversations?limit=1000')).body.items.length as number;
    expect(after).toBe(before + 1);
  });

  it('survives a restart', async () => {
    const first = await post(a, a.conv(id, '/failures'), { input: 'r', error: 'r' }, 'k-restart');
    await h.restart();
    const before = await head();
    const again = await post(a, a.conv(id, '/failures'), { input: 'r', error: 'r' }, 'k-restart');
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await head()).toBe(before);
  });

  it('a malformed key is 400 with the header path', async () => {
    for (const key of ['', 'é', 'x'.repeat(256)]) {
      const r = await post(a, '/v1/conversations', {}, key);
      expect({ key, status: r.status }).toEqual({ key, status: 400 });
      expect(r.body.errors[0].path).toBe('headers.idempotency-key');
    }
  });
});

describe('commands that change nothing append nothing', () => {
  let h: Harness;
  let c: Client;
  beforeAll(async () => {
    h = await startHarness();
    c = clientFor(h, (await h.createTenant('noop')).apiKey);
  });
  afterAll(async () => {
    await h.destroy();
  });

  const revision = async (id: string) => (await c.conversation(id)).revision as number;
  const types = async (id: string) =>
    ((await c.get(c.conv(id, '/events'))).body.items as { type: string; data: never }[]).map(
      (e) => e as { type: string; data: { from?: unknown; to?: unknown } },
    );

  it('moving the tip to where it is answers the current state and writes no TipMoved', async () => {
    const id = await c.start();
    const t = await c.turn(id, null, exchange('1'));
    const before = await revision(id);
    const r = await c.put(c.conv(id, '/tip'), { messageId: t.tip });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ tip: t.tip, revision: before });
    expect(await revision(id)).toBe(before);
    for (const e of await types(id))
      if (e.type === 'TipMoved') expect(e.data.from).not.toBe(e.data.to);
  });

  it('a second rewind to the same label, and a second identical resume, append nothing', async () => {
    const id = await c.start();
    const t1 = await c.turn(id, null, exchange('1'));
    await c.checkpoint(id, 'here', t1.tip);
    const t2 = await c.turn(id, t1.tip, exchange('2'));
    const rewind = () => c.post(c.conv(id, '/checkpoints/here/rewind'), {});
    const first = await rewind();
    expect(first.body.tip).toBe(t1.tip);
    const afterFirst = await revision(id);
    const second = await rewind();
    expect(second.status).toBe(200);
    expect(second.body).toEqual({ tip: t1.tip, revision: afterFirst });
    expect(await revision(id)).toBe(afterFirst);

    await c.moveTip(id, t2.tip);
    const resume = () => c.post(c.conv(id, '/resume'), { keepMessages: 2 });
    const r1 = await resume();
    expect(r1.status).toBe(200);
    const afterResume = await revision(id);
    const r2 = await resume();
    expect(r2.status).toBe(200);
    expect(r2.body).toEqual({ ...r1.body, droppedCheckpoints: [], revision: afterResume });
    expect(await revision(id)).toBe(afterResume);
    for (const e of await types(id))
      if (e.type === 'TipMoved') expect(e.data.from).not.toBe(e.data.to);
  });
});
