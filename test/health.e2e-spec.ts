import { type Harness, startHarness, ADMIN_KEY } from './support/harness';

describe('service basics (HTTP, real SQLite file)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.destroy();
  });

  it('/health says only that the service is up; the log position is an admin route', async () => {
    const r = await h.call('GET', '/health');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: 'ok' });
    const log = () => h.call('GET', '/v1/admin/log', { key: ADMIN_KEY });
    const before = (await log()).body;
    expect(before.kind).toBe('sqlite');
    await h.createTenant('x');
    expect((await h.call('GET', '/health')).text).toBe(r.text);
    const after = (await log()).body.position as string;
    expect(BigInt(after)).toBeGreaterThan(before.position === null ? -1n : BigInt(before.position));
    expect((await h.call('GET', '/v1/admin/log')).status).toBe(401);
  });

  it('serves OpenAPI at /docs', async () => {
    const r = await h.call('GET', '/docs/openapi.json');
    expect(r.status).toBe(200);
    expect(r.body.openapi).toMatch(/^3\./);
    expect(Object.keys(r.body.paths)).toEqual(expect.arrayContaining(['/health', '/v1/tenants']));
    // Paged lists document `cursor` and `limit` with their page size.
    type Param = { name: string; schema?: { default?: number } };
    const params = (route: string): Param[] => r.body.paths[route].get.parameters as Param[];
    const limitOf = (route: string) => params(route).find((p) => p.name === 'limit')?.schema;
    expect(params('/v1/conversations').map((p) => p.name)).toEqual(
      expect.arrayContaining(['cursor', 'limit']),
    );
    expect(limitOf('/v1/conversations')?.default).toBe(50);
    expect(limitOf('/v1/conversations/{id}/events')?.default).toBe(100);
    const html = await h.call('GET', '/docs');
    expect(html.status).toBe(200);
    expect(html.text).toContain('swagger');
  });

  it('answers unknown routes with problem+json', async () => {
    const r = await h.call('GET', '/nope');
    expect(r.status).toBe(404);
    expect(r.headers.get('content-type')).toContain('application/problem+json');
    expect(r.body.code).toBe('not_found');
  });

  it('creates tenants with the admin key only, and shows the key once', async () => {
    expect((await h.call('POST', '/v1/tenants', { body: {} })).status).toBe(401);
    expect(
      (await h.call('POST', '/v1/tenants', { key: 'wrong-admin-key-xxxxxxxx', body: {} })).body
        .code,
    ).toBe('unauthorized');
    const t = await h.createTenant('acme');
    expect(t.id).toMatch(/^[A-Za-z0-9]{16}$/);
    expect(t.apiKey).toMatch(/^arb_[A-Za-z0-9]{16}_[A-Za-z0-9_-]{43}$/);
    const keys = await h.call('GET', `/v1/tenants/${t.id}/keys`, { key: ADMIN_KEY });
    expect(keys.status).toBe(200);
    // The secret is everything after `arb_<keyId>_` (base64url: it may hold '_' itself, and the
    // tail after its last '_' can be one character that any answer contains by chance).
    const secret = t.apiKey.split('_').slice(2).join('_');
    expect(secret).toHaveLength(43);
    expect(keys.text).not.toContain(secret);
  });

  it('rejects invalid admin bodies with precise paths', async () => {
    const r = await h.call('POST', '/v1/tenants', {
      key: ADMIN_KEY,
      body: { name: 42, extra: true },
    });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('validation_failed');
    expect(r.body.errors.map((e: { path: string }) => e.path)).toEqual(
      expect.arrayContaining(['body.name']),
    );
  });

  it('answers malformed JSON with 400 malformed_json', async () => {
    const r = await h.call('POST', '/v1/tenants', { key: ADMIN_KEY, raw: '{"name":' });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('malformed_json');
  });
});

describe('admin calls without ARBOR_ADMIN_KEY', () => {
  it('are refused', async () => {
    const h = await startHarness({ ARBOR_ADMIN_KEY: '' });
    try {
      const r = await h.call('POST', '/v1/tenants', { key: ADMIN_KEY, body: {} });
      expect(r.status).toBe(403);
      expect(r.body.code).toBe('forbidden');
    } finally {
      await h.destroy();
    }
  });
});
