/**
 * The wire contract against the running app: every route Nest serves has its operation in the
 * OpenAPI document (and no operation lacks its route), `/docs/openapi.json` serves the generated
 * document, and one call per operation reaches each documented 2xx answer plus the common error
 * answers, every answer checked against the document by the shared client (support/contract-check).
 */
import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { ModulesContainer } from '@nestjs/core';
import { buildOpenApiDocument, ROUTES } from '@arbor/contract';
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
} from './support/api';
import { openSse } from './support/sse';
import { checkAnswer, ContractMismatch, reachedRoutes } from './support/contract-check';
import { ADMIN_KEY, type Harness, startHarness } from './support/harness';

/** `METHOD /path/{param}` of every route the Nest app registered, read from its controllers. */
const nestRoutes = (h: Harness): string[] => {
  const out: string[] = [];
  const join = (...parts: string[]) =>
    '/' +
    parts
      .flatMap((p) => p.split('/'))
      .filter((p) => p !== '')
      .map((p) => (p.startsWith(':') ? `{${p.slice(1)}}` : p))
      .join('/');
  for (const module of h.app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const cls = wrapper.metatype as (new (...args: never[]) => unknown) | null;
      if (!cls) continue;
      const base = String(Reflect.getMetadata(PATH_METADATA, cls) ?? '');
      for (const name of Object.getOwnPropertyNames(cls.prototype)) {
        const fn = (cls.prototype as Record<string, unknown>)[name];
        if (typeof fn !== 'function' || name === 'constructor') continue;
        const method = Reflect.getMetadata(METHOD_METADATA, fn) as RequestMethod | undefined;
        const path = Reflect.getMetadata(PATH_METADATA, fn) as string | undefined;
        if (method === undefined || path === undefined) continue;
        out.push(`${RequestMethod[method]} ${join(base, path)}`);
      }
    }
  }
  return out.sort();
};

describe('the wire contract (OpenAPI document) against the app', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.destroy();
  });

  it('documents exactly the routes the app serves', () => {
    const documented = ROUTES.map((r) => `${r.method.toUpperCase()} ${r.path}`).sort();
    expect(nestRoutes(h)).toEqual(documented);
  });

  it('the check refuses an answer the document does not allow', () => {
    const ok = JSON.stringify({ status: 'ok' });
    expect(() => checkAnswer('GET', '/health', 200, 'application/json', ok)).not.toThrow();
    const extra = JSON.stringify({ status: 'ok', store: { kind: 'sqlite', position: null } });
    expect(() => checkAnswer('GET', '/health', 200, 'application/json', extra)).toThrow(
      ContractMismatch,
    );
    expect(() => checkAnswer('GET', '/health', 201, 'application/json', ok)).toThrow(
      /no 201 answer/,
    );
    const problem = (code: string) =>
      JSON.stringify({ type: 't', title: 't', status: 404, code, instance: '/x' });
    const url = '/v1/conversations/c1/retry';
    const type = 'application/problem+json';
    expect(() => checkAnswer('GET', url, 404, type, problem('nothing_to_retry'))).not.toThrow();
    expect(() => checkAnswer('GET', url, 404, type, problem('checkpoint_not_found'))).toThrow(
      ContractMismatch,
    );
  });

  it('serves the generated document at /docs/openapi.json and the UI at /docs', async () => {
    const r = await h.call('GET', '/docs/openapi.json');
    expect(r.status).toBe(200);
    expect(r.body).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument())));
    const ui = await h.call('GET', '/docs');
    expect(ui.status).toBe(200);
    expect(ui.text).toContain('swagger');
  });

  it('reaches every documented 2xx answer, each matching its schema', async () => {
    const admin = clientFor(h, ADMIN_KEY);
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
      (await h.call('DELETE', `/v1/tenants/${tenantId}/keys/${key.body.keyId}`, { key: ADMIN_KEY }))
        .status,
    ).toBe(204);
    expect((await admin.post('/v1/admin/projections/rebuild')).status).toBe(200);
    expect((await admin.get('/v1/admin/projections')).status).toBe(200);
    expect((await admin.get('/v1/admin/log')).status).toBe(200);
    expect((await admin.get('/metrics')).status).toBe(200);
    expect((await h.call('GET', '/health')).status).toBe(200);

    const api = clientFor(h, tenant.body.apiKey as string);
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
    const live = await openSse(h.baseUrl, api.conv(id, '/stream'), api.key, {
      'last-event-id': '0',
    });
    expect(live.status).toBe(200);
    expect((await live.next()).id).toBe('1');
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
    const discard = await h.call('DELETE', `/v1/conversations/${id}/draft`, {
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
    const asAdmin = (rest: string) =>
      admin.get(`/v1/admin/tenants/${tenantId}/conversations${rest}`);
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
    let tip: string | null = (await api.turn(long, null, [user('The task.'), assistant('Ok.')]))
      .tip;
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
    expect(
      (await admin.put(`/v1/tenants/${tenantId}/retention`, { retentionDays: 30 })).status,
    ).toBe(200);
    expect((await admin.post('/v1/admin/retention/sweep')).status).toBe(200);
    const doomed = await api.start({ title: 'doomed' });
    expect(
      (await h.call('DELETE', api.conv(doomed, '?reason=test&forks=erase'), { key: api.key }))
        .status,
    ).toBe(200);
    const leaving = await admin.post('/v1/tenants', { name: 'leaving' });
    expect(
      (await h.call('DELETE', `/v1/tenants/${leaving.body.id as string}`, { key: ADMIN_KEY }))
        .status,
    ).toBe(200);

    const missing = ROUTES.flatMap((r) =>
      Object.keys(r.responses).map((s) => `${r.method.toUpperCase()} ${r.path} ${s}`),
    ).filter((k) => !reachedRoutes().has(k));
    expect(missing).toEqual([]);
  });

  it('answers the common errors of every route as documented', async () => {
    const api = clientFor(h, (await h.createTenant('errors')).apiKey);
    for (const route of ROUTES) {
      const url = route.path.replace(/\{[^}]+\}/g, 'nope');
      const method = route.method.toUpperCase();
      // No key (or a tenant key on an admin route): 401.
      if (route.auth !== 'none') {
        const r = await h.call(method, url, { body: route.body ? {} : undefined });
        expect([method, route.path, r.status]).toEqual([method, route.path, 401]);
      }
      // Unknown ids answer 404 (or 400 for bodies/queries that need more), as documented.
      // (`PUT /v1/conversations/{id}` creates one: it has no unknown id.)
      const creates = route.operationId === 'ensureConversation';
      if (route.auth === 'tenant' && route.path.includes('{id}') && !creates) {
        const r = await h.call(method, url, { key: api.key, body: route.body ? {} : undefined });
        expect(r.status).toBeGreaterThanOrEqual(400);
      }
    }
    expect([...reachedRoutes()].filter((k) => / 4\d\d$/.test(k)).length).toBeGreaterThan(30);
  });
});
