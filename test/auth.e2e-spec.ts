import {
  clientFor,
  conversationRoutes,
  exchange,
  problemShape,
  type RouteCall,
} from './support/api';
import { ADMIN_KEY, type Harness, startHarness } from './support/harness';

describe('401 for missing, malformed, unknown and revoked keys', () => {
  let h: Harness;
  let tenant: { id: string; apiKey: string };
  let second: { keyId: string; apiKey: string };
  let convId: string;
  let messageId: string;
  let routes: RouteCall[];

  beforeAll(async () => {
    h = await startHarness();
    tenant = await h.createTenant('auth');
    const k = await h.call('POST', `/v1/tenants/${tenant.id}/keys`, {
      key: ADMIN_KEY,
      body: { label: 'ci' },
    });
    expect(k.status).toBe(201);
    second = k.body;
    const c = clientFor(h, tenant.apiKey);
    convId = await c.start();
    messageId = (await c.turn(convId, null, exchange('1'))).tip;
    routes = [
      { name: 'start', method: 'POST', url: '/v1/conversations', body: { title: 'x' } },
      { name: 'list', method: 'GET', url: '/v1/conversations' },
      ...conversationRoutes(convId, messageId),
    ];
  });
  afterAll(async () => {
    await h.destroy();
  });

  const send = (r: RouteCall, headers: Record<string, string>) =>
    h.call(r.method, r.url, { body: r.body, headers });

  /** Every route answers 401 with one body, whatever the reason; returns that body. */
  const allUnauthorized = async (headers: Record<string, string>) => {
    const shapes = new Set<string>();
    for (const r of routes) {
      const res = await send(r, headers);
      expect({ route: r.name, status: res.status, code: res.body?.code }).toEqual({
        route: r.name,
        status: 401,
        code: 'unauthorized',
      });
      const { body, contentType } = problemShape(res);
      const parsed = JSON.parse(body) as Record<string, unknown>;
      delete parsed.instance;
      shapes.add(JSON.stringify({ contentType, parsed }));
    }
    expect(shapes.size).toBe(1);
    return [...shapes][0];
  };

  it('without an Authorization header', async () => {
    await allUnauthorized({});
  });

  it('with malformed, unknown or wrong-secret keys — all one answer', async () => {
    const [prefix, keyId, secret] = tenant.apiKey.split('_');
    const wrongSecret = `${prefix}_${keyId}_${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`;
    const bodies = new Set<string>();
    for (const auth of [
      'Bearer',
      'Bearer ',
      `Basic ${tenant.apiKey}`,
      `bearer-ish ${tenant.apiKey}`,
      'Bearer arb_bad',
      `Bearer ${tenant.apiKey}x`,
      `Bearer ${wrongSecret}`,
      `Bearer arb_AAAAAAAAAAAAAAAA_${secret}`,
      `Bearer ${ADMIN_KEY}`,
    ]) {
      bodies.add(await allUnauthorized({ authorization: auth }));
    }
    expect(bodies.size).toBe(1);
  });

  it('a revoked key answers 401 from then on (also after a restart); other keys still work', async () => {
    const c2 = clientFor(h, second.apiKey);
    expect((await c2.get(`/v1/conversations/${convId}`)).status).toBe(200);
    const del = await h.call('DELETE', `/v1/tenants/${tenant.id}/keys/${second.keyId}`, {
      key: ADMIN_KEY,
    });
    expect(del.status).toBe(204);
    const revoked = await allUnauthorized({ authorization: `Bearer ${second.apiKey}` });
    const missing = await allUnauthorized({});
    expect(revoked).toBe(
      missing.replace('Send Authorization: Bearer <api key>.', 'The API key is not valid.'),
    );
    const keys = await h.call('GET', `/v1/tenants/${tenant.id}/keys`, { key: ADMIN_KEY });
    expect(keys.body.items).toEqual(
      expect.arrayContaining([expect.objectContaining({ keyId: second.keyId, revoked: true })]),
    );
    // The tenant's first key is untouched.
    expect(
      (await h.call('GET', `/v1/conversations/${convId}`, { key: tenant.apiKey })).status,
    ).toBe(200);
    await h.restart();
    await allUnauthorized({ authorization: `Bearer ${second.apiKey}` });
    expect(
      (await h.call('GET', `/v1/conversations/${convId}/tree`, { key: tenant.apiKey })).status,
    ).toBe(200);
  });

  it('revoking is admin-only, and a key of another tenant cannot be revoked through this one', async () => {
    const other = await h.createTenant('other');
    const asTenant = await h.call('DELETE', `/v1/tenants/${tenant.id}/keys/${second.keyId}`, {
      key: tenant.apiKey,
    });
    expect(asTenant.status).toBe(401);
    const otherKeyId = other.apiKey.split('_')[1];
    const cross = await h.call('DELETE', `/v1/tenants/${tenant.id}/keys/${otherKeyId}`, {
      key: ADMIN_KEY,
    });
    expect(cross.status).toBe(404);
    expect((await h.call('GET', '/v1/conversations', { key: other.apiKey })).status).toBe(200);
  });

  it('rejected calls write nothing', async () => {
    const c = clientFor(h, tenant.apiKey);
    const before = await c.events(convId);
    await allUnauthorized({ authorization: 'Bearer arb_nope' });
    expect(await c.events(convId)).toEqual(before);
  });
});
