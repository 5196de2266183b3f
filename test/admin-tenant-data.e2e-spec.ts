/**
 * The admin's own read-only routes to a tenant's data (`/v1/admin/tenants/{tenantId}/conversations…`):
 * the tenant routes' answers, every read recorded first as an `AdminDataRead` event (actor admin)
 * in the tenant's `audit-<tenantId>.admin-reads` stream; a tenant key is refused; writes are not
 * routes there.
 */
import { type EventStore, StreamNotFoundError } from '@arbor/event-store';
import { adminReadsStream, EVENT_STORE } from '@arbor/application';
import { type Client, exchange, newTenant } from './support/api';
import { ADMIN_KEY, type Harness, startHarness } from './support/harness';

describe('admin routes to a tenant’s data', () => {
  let h: Harness;
  let a: Client & { tenantId: string };
  let b: Client;
  let conv: string;
  let otherConv: string;
  let contextId: string;
  let messageId: string;

  const admin = (tenantId: string, rest = '') =>
    h.call('GET', `/v1/admin/tenants/${encodeURIComponent(tenantId)}/conversations${rest}`, {
      key: ADMIN_KEY,
      headers: { 'x-correlation-id': 'console-look-1' },
    });

  const reads = async (tenantId: string) => {
    const store = h.app.get<symbol, EventStore>(EVENT_STORE);
    try {
      return await store.readStream(adminReadsStream(tenantId));
    } catch (e) {
      if (e instanceof StreamNotFoundError) return [];
      throw e;
    }
  };

  beforeAll(async () => {
    h = await startHarness();
    const ta = await newTenant(h, 'a');
    a = { ...ta.client, tenantId: ta.id };
    b = (await newTenant(h, 'b')).client;
    conv = await a.start({ title: 'looked at' });
    const t1 = await a.turn(conv, null, exchange('one'));
    await a.turn(conv, t1.tip, exchange('two'));
    messageId = t1.messageIds[0];
    const ctx = await a.post(a.conv(conv, '/context'), {
      provider: 'anthropic',
      model: 'm-1',
      budgetTokens: 100_000,
    });
    expect(ctx.status).toBe(200);
    contextId = ctx.body.contextId as string;
    otherConv = await b.start({ title: 'not a' });
  });
  afterAll(() => h.destroy());

  it('answers every read route exactly as the tenant’s own route does', async () => {
    const routes = [
      '',
      `/${conv}`,
      `/${conv}/tree`,
      `/${conv}/messages?limit=2`,
      `/${conv}/messages/${messageId}`,
      `/${conv}/checkpoints`,
      `/${conv}/events?limit=3`,
      `/${conv}/export?format=jsonl&scope=tree`,
      `/${conv}/verify`,
      `/${conv}/replay?revision=2`,
      `/${conv}/contexts`,
      `/${conv}/contexts/${contextId}`,
    ];
    for (const rest of routes) {
      const mine = await a.get(`/v1/conversations${rest}`);
      const theirs = await admin(a.tenantId, rest);
      expect([rest, theirs.status]).toEqual([rest, 200]);
      expect([rest, theirs.text]).toEqual([rest, mine.text]);
    }
  });

  it('records each read before answering it: an AdminDataRead event with actor admin', async () => {
    const before = (await reads(a.tenantId)).length;
    expect((await admin(a.tenantId, `/${conv}/tree`)).status).toBe(200);
    expect((await admin(a.tenantId, '?limit=1')).status).toBe(200);
    const after = await reads(a.tenantId);
    expect(after).toHaveLength(before + 2);
    const [tree, list] = after.slice(-2);
    expect(tree.type).toBe('AdminDataRead');
    expect(tree.data).toEqual({
      tenantId: a.tenantId,
      route: 'GET /v1/admin/tenants/{tenantId}/conversations/{id}/tree',
      conversationId: conv,
    });
    expect(tree.metadata).toMatchObject({
      actor: 'admin',
      tenantId: a.tenantId,
      correlationId: 'console-look-1',
    });
    expect(list.data).toEqual({
      tenantId: a.tenantId,
      route: 'GET /v1/admin/tenants/{tenantId}/conversations',
      conversationId: null,
    });
    // The tenant's own reads record nothing.
    await a.get(a.conv(conv, '/tree'));
    expect(await reads(a.tenantId)).toHaveLength(before + 2);
  });

  it('refuses a tenant key (401 problem+json) and records nothing', async () => {
    const before = (await reads(a.tenantId)).length;
    const r = await h.call('GET', `/v1/admin/tenants/${a.tenantId}/conversations/${conv}/tree`, {
      key: a.key,
    });
    expect(r.status).toBe(401);
    expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(r.body.code).toBe('unauthorized');
    const none = await h.call('GET', `/v1/admin/tenants/${a.tenantId}/conversations`);
    expect(none.status).toBe(401);
    expect(await reads(a.tenantId)).toHaveLength(before);
  });

  it('keeps tenants apart: another tenant’s conversation is 404 under this tenant', async () => {
    const r = await admin(a.tenantId, `/${otherConv}/tree`);
    expect(r.status).toBe(404);
    expect(r.body.code).toBe('conversation_not_found');
    const list = await admin(a.tenantId);
    expect(list.body.items.map((c: { id: string }) => c.id)).toEqual([conv]);
  });

  it('answers an unknown tenant 404 tenant_not_found and a malformed id 400, as problem+json', async () => {
    const unknown = await admin('no-such-tenant', `/${conv}`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('tenant_not_found');
    expect(unknown.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const bad = await admin('bad.id', `/${conv}`);
    expect(bad.status).toBe(400);
    expect(await reads('no-such-tenant')).toEqual([]);
  });

  it('checks every path id before recording the read: a malformed message or context id is a 400, unrecorded', async () => {
    const before = (await reads(a.tenantId)).length;
    for (const rest of [`/${conv}/messages/bad.id`, `/${conv}/contexts/bad.id`, '/bad.id/tree']) {
      const r = await admin(a.tenantId, rest);
      expect([rest, r.status, r.body.code, r.body.errors?.[0]?.path]).toEqual([
        rest,
        400,
        'validation_failed',
        'params',
      ]);
    }
    expect(await reads(a.tenantId)).toHaveLength(before);
  });

  it('has no write routes: a turn posted there is 404, the conversation unchanged', async () => {
    const before = await a.conversation(conv);
    const r = await h.call('POST', `/v1/admin/tenants/${a.tenantId}/conversations/${conv}/turns`, {
      key: ADMIN_KEY,
      body: { messages: exchange('three') },
    });
    expect(r.status).toBe(404);
    expect((await a.conversation(conv)).revision).toBe(before.revision);
  });
});
