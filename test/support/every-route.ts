/**
 * One call per operation of the HTTP API, reaching each documented 2xx answer: the walk the wire
 * contract spec (test/contract.e2e-spec.ts) runs on the in-process harness and the scaled-routes
 * spec (test/scaled-routes.e2e-spec.ts) runs on two replicas and the embedded shape to compare
 * their answers. The walk only needs a caller: every request goes through `call` (which checks the
 * answer against the OpenAPI document), the live stream is opened on `streamBase`. `walkCommonErrors`
 * then calls every route without a key and with unknown ids.
 */
import { ROUTES } from '@arbor/contract';
import { ADMIN_KEY, type Harness } from './harness';
import {
  assistant,
  clientFor,
  exchange,
  msg,
  text,
  toolResult,
  toolTurn,
  toolUse,
  user,
} from './api';
import { openSse, type SseFrame } from './sse';

export interface RouteCaller {
  call: Harness['call'];
  /** The base URL the live stream (`GET …/stream`) is opened on. */
  streamBase: string;
}

export interface RouteWalk {
  tenantId: string;
  apiKey: string;
  /** The first frame the live stream sent (it is no `call`, so no caller records it). */
  firstFrame: SseFrame;
}

/** Walks every route; `expect`s each documented 2xx status on the way. */
export const walkEveryRoute = async (c: RouteCaller): Promise<RouteWalk> => {
  const admin = clientFor(c, ADMIN_KEY);
  const tenant = await admin.post('/v1/tenants', { name: 'contract' });
  expect(tenant.status).toBe(201);
  const tenantId = tenant.body.id as string;
  const key = await admin.post(`/v1/tenants/${tenantId}/keys`, { label: 'second' });
  expect(key.status).toBe(201);
  expect((await admin.get(`/v1/tenants/${tenantId}/keys`)).status).toBe(200);
  expect((await admin.get(`/v1/tenants/${tenantId}/limits`)).status).toBe(200);
  expect(
    (
      await admin.put(`/v1/tenants/${tenantId}/limits`, {
        limit: { ratePerSecond: 1000, burst: 1000 },
      })
    ).status,
  ).toBe(200);
  expect((await admin.get('/v1/tenants')).status).toBe(200);
  expect(
    (await c.call('DELETE', `/v1/tenants/${tenantId}/keys/${key.body.keyId}`, { key: ADMIN_KEY }))
      .status,
  ).toBe(204);
  expect((await admin.post('/v1/admin/projections/rebuild')).status).toBe(200);
  expect((await admin.get('/v1/admin/projections')).status).toBe(200);
  expect((await admin.get('/v1/admin/log')).status).toBe(200);
  expect((await admin.get('/metrics')).status).toBe(200);
  expect((await c.call('GET', '/health')).status).toBe(200);

  const api = clientFor(c, tenant.body.apiKey as string);
  expect(
    (await api.put('/v1/settings/context', { models: { 'claude-': { keepImages: 2 } } })).status,
  ).toBe(200);
  expect((await api.get('/v1/settings/context')).status).toBe(200);

  const id = await api.start({ title: 'contract', metadata: { by: 'test' } });
  expect((await api.get('/v1/conversations?limit=1')).status).toBe(200);
  expect((await api.get(api.conv(id))).status).toBe(200);
  expect((await api.put(api.conv('ensured'), { title: 'by id' })).status).toBe(201);
  expect((await api.put(api.conv('ensured'), {})).status).toBe(200);
  const first = await api.turn(id, null, toolTurn('a'), { turnId: 't1' });
  const again = await api.post(api.conv(id, '/turns'), {
    parentId: null,
    messages: toolTurn('a'),
    turnId: 't1',
  });
  expect(again.status).toBe(200);
  const second = await api.turn(id, first.tip, exchange('b'));
  expect((await api.put(api.conv(id, '/tip'), { messageId: first.tip })).status).toBe(200);
  expect((await api.put(api.conv(id, '/tip'), { messageId: second.tip })).status).toBe(200);
  expect(
    (await api.post(api.conv(id, '/checkpoints'), { label: 'cp', messageId: first.tip })).status,
  ).toBe(201);
  expect((await api.get(api.conv(id, '/checkpoints'))).status).toBe(200);
  expect(
    (await api.post(api.conv(id, '/checkpoints/cp/rewind'), { digest: 'explored b' })).status,
  ).toBe(200);
  const third = await api.turn(id, undefined, exchange('c'));
  expect((await api.get(api.conv(id, '/messages?limit=2'))).status).toBe(200);
  expect((await api.get(api.conv(id, `/messages/${third.messageIds[0]}`))).status).toBe(200);
  expect((await api.get(api.conv(id, '/tree'))).status).toBe(200);
  expect((await api.get(api.conv(id, '/events?fromRevision=0&limit=3'))).status).toBe(200);
  const live = await openSse(c.streamBase, api.conv(id, '/stream'), api.key, {
    'last-event-id': '0',
  });
  expect(live.status).toBe(200);
  const firstFrame = await live.next();
  expect(firstFrame.id).toBe('1');
  live.close();
  expect((await api.get(api.conv(id, '/export?format=jsonl'))).status).toBe(200);
  expect((await api.get(api.conv(id, '/export?format=markdown'))).status).toBe(200);
  expect((await api.post(api.conv(id, '/forks'), { messageId: first.tip })).status).toBe(201);
  expect(
    (await api.post(api.conv(id, '/failures'), { input: { prompt: 'x' }, error: 'boom' })).status,
  ).toBe(201);
  expect((await api.get(api.conv(id, '/retry'))).status).toBe(200);
  const draft = [{ role: 'user', content: [{ type: 'text', text: 'open' }] }];
  const answer = [{ role: 'assistant', content: [{ type: 'text', text: 'closed' }] }];
  const draftParent = (await api.get(api.conv(id))).body.tip;
  expect(
    (await api.put(api.conv(id, '/draft'), { parentId: draftParent, messages: draft })).status,
  ).toBe(200);
  expect((await api.get(api.conv(id, '/draft'))).status).toBe(200);
  const byDraft = { turnId: 'from-draft', messages: answer };
  expect((await api.post(api.conv(id, '/draft/commit'), byDraft)).status).toBe(201);
  expect((await api.post(api.conv(id, '/draft/commit'), byDraft)).status).toBe(200);
  const discard = await c.call('DELETE', `/v1/conversations/${id}/draft`, {
    key: tenant.body.apiKey as string,
  });
  expect(discard.status).toBe(200);
  const context = await api.post(api.conv(id, '/context'), {
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    budgetTokens: 100_000,
    system: 'be brief',
  });
  expect(context.status).toBe(200);
  expect(
    (await api.get(api.conv(id, '/context/report?provider=openai-chat&model=gpt-4o'))).status,
  ).toBe(200);
  expect((await api.post(api.conv(id, '/resume'), { keepMessages: 2 })).status).toBe(200);
  expect((await api.get(api.conv(id, '/replay?revision=3&limit=2'))).status).toBe(200);
  expect((await api.get(api.conv(id, '/contexts?limit=1'))).status).toBe(200);
  expect((await api.get(api.conv(id, `/contexts/${context.body.contextId}`))).status).toBe(200);
  expect((await api.get(api.conv(id, '/verify'))).status).toBe(200);
  // The admin's reads of the same data through its own routes.
  const asAdmin = (rest: string) => admin.get(`/v1/admin/tenants/${tenantId}/conversations${rest}`);
  for (const rest of [
    '?limit=1',
    `/${id}`,
    `/${id}/tree`,
    `/${id}/messages?limit=2`,
    `/${id}/messages/${third.messageIds[0]}`,
    `/${id}/checkpoints`,
    `/${id}/events?limit=3`,
    `/${id}/export?format=jsonl`,
    `/${id}/verify`,
    `/${id}/replay?revision=3&limit=2`,
    `/${id}/contexts?limit=1`,
    `/${id}/contexts/${context.body.contextId}`,
  ]) {
    expect([rest, (await asAdmin(rest)).status]).toEqual([rest, 200]);
  }

  // A compaction decision to list and revoke: old tool output elided at a small budget.
  const long = await api.start({ title: 'compactions' });
  let tip: string | null = (await api.turn(long, null, [user('The task.'), assistant('Ok.')])).tip;
  for (let i = 0; i < 6; i++) {
    const output = `line ${i} of tool output nobody will reread\n`.repeat(400);
    tip = (
      await api.turn(long, tip, [
        user(`step ${i}`),
        msg('assistant', [text(`running ${i}`), toolUse(`call_${i}`, 'bash', { i })]),
        msg('user', [toolResult(`call_${i}`, output)]),
        assistant(`step ${i} done`),
      ])
    ).tip;
  }
  const compacted = await api.post(api.conv(long, '/context'), {
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    budgetTokens: 12_000,
  });
  expect(compacted.status).toBe(200);
  const listed = await api.get(api.conv(long, '/compactions'));
  expect(listed.status).toBe(200);
  const decisionId = (listed.body.items as { decision: { id: string } }[])[0].decision.id;
  expect(
    (await api.post(api.conv(long, `/compactions/${decisionId}/revoke`), { reason: 'x' })).status,
  ).toBe(200);

  // Erasure and retention.
  expect((await admin.put(`/v1/tenants/${tenantId}/retention`, { retentionDays: 30 })).status).toBe(
    200,
  );
  expect((await admin.post('/v1/admin/retention/sweep')).status).toBe(200);
  const doomed = await api.start({ title: 'doomed' });
  expect(
    (await c.call('DELETE', api.conv(doomed, '?reason=test&forks=erase'), { key: api.key })).status,
  ).toBe(200);
  const leaving = await admin.post('/v1/tenants', { name: 'leaving' });
  expect(
    (await c.call('DELETE', `/v1/tenants/${leaving.body.id as string}`, { key: ADMIN_KEY })).status,
  ).toBe(200);
  return { tenantId, apiKey: tenant.body.apiKey as string, firstFrame };
};

/**
 * The common errors of every route: no key (or a tenant key on an admin route) answers 401, an
 * unknown id 404 (or 400 for bodies/queries that need more), as documented.
 */
export const walkCommonErrors = async (c: Pick<RouteCaller, 'call'>): Promise<void> => {
  const tenant = await c.call('POST', '/v1/tenants', { key: ADMIN_KEY, body: { name: 'errors' } });
  expect(tenant.status).toBe(201);
  const key = tenant.body.apiKey as string;
  for (const route of ROUTES) {
    const url = route.path.replace(/\{[^}]+\}/g, 'nope');
    const method = route.method.toUpperCase();
    if (route.auth !== 'none') {
      const r = await c.call(method, url, { body: route.body ? {} : undefined });
      expect([method, route.path, r.status]).toEqual([method, route.path, 401]);
    }
    // (`PUT /v1/conversations/{id}` creates one: it has no unknown id.)
    const creates = route.operationId === 'ensureConversation';
    if (route.auth === 'tenant' && route.path.includes('{id}') && !creates) {
      const r = await c.call(method, url, { key, body: route.body ? {} : undefined });
      expect(r.status).toBeGreaterThanOrEqual(400);
    }
  }
};
