/**
 * Heavy context work is bounded per tenant (issue #23 item 4): at most ARBOR_HEAVY_PER_TENANT
 * context calls of one tenant at once (`429 heavy_work_busy` + Retry-After, other tenants
 * unaffected), a context call takes rate-limit tokens by what it assembled
 * (ARBOR_CONTEXT_CHARGE_BYTES), and `maxSnapshotPages` cannot ask for more pages than the
 * provider takes images in one request for the model (`400 snapshot_pages_over_limit`).
 */
import {
  type FakeProvider,
  startFakeProvider,
} from '../libs/context/src/summary/testing/fake-provider';
import { describeWithRedis, randomPrefix, TEST_REDIS_URL } from '@arbor/projections/testing/redis';
import {
  type Client,
  clientFor,
  msg,
  text,
  toolResult,
  toolUse,
  user,
  assistant,
} from './support/api';
import { ADMIN_KEY, type Harness, startHarness } from './support/harness';

const SUMMARY_KEY = 'sk-ant-test-heavy-key';

/** `steps` tool steps of ~`bytes` of output each, then a short last turn. */
async function seed(api: Client, steps = 8, bytes = 4000): Promise<string> {
  const id = await api.start({ title: 'heavy' });
  let tip = (await api.turn(id, null, [user('Port the parser.'), assistant('Understood.')])).tip;
  for (let i = 0; i < steps; i++) {
    const call = `toolu_${i}`;
    tip = (
      await api.turn(id, tip, [
        user(`Now do step ${i}.`),
        msg('assistant', [text(`Running step ${i}.`), toolUse(call, 'bash', { cmd: `make ${i}` })]),
        msg('user', [toolResult(call, `step ${i} output `.repeat(Math.ceil(bytes / 16)))]),
        assistant(`Step ${i} is done.`),
      ])
    ).tip;
  }
  return id;
}

const compact = (api: Client, id: string) =>
  api.post(api.conv(id, '/context'), {
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    budgetTokens: 200_000,
    mode: 'compact',
  });

describe('heavy context calls: a cap per tenant', () => {
  let fake: FakeProvider;
  let h: Harness;
  beforeAll(async () => {
    // The first summary request hangs: the context call that made it stays running.
    fake = await startFakeProvider({
      provider: 'anthropic',
      apiKey: SUMMARY_KEY,
      contextWindowTokens: 200_000,
      script: ['hang'],
    });
    h = await startHarness({
      ARBOR_HEAVY_PER_TENANT: '1',
      ARBOR_SUMMARY_PROVIDER: 'anthropic',
      ARBOR_SUMMARY_BASE_URL: fake.url,
      ARBOR_SUMMARY_API_KEY: SUMMARY_KEY,
      ARBOR_SUMMARY_MODEL: 'claude-haiku-4-5',
    });
  });
  afterAll(async () => {
    await fake.close();
    await h.destroy();
  });

  it('one more heavy call of the same tenant is 429 heavy_work_busy with Retry-After; another tenant goes on', async () => {
    const a = clientFor(h, (await h.createTenant('a')).apiKey);
    const b = clientFor(h, (await h.createTenant('b')).apiKey);
    const [convA, convB] = [await seed(a, 12, 16_000), await seed(b, 12, 16_000)];
    const held = compact(a, convA);
    for (let i = 0; i < 200 && fake.requests.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(fake.requests).toHaveLength(1);

    const over = await compact(a, convA);
    expect(over.status).toBe(429);
    expect(over.body.code).toBe('heavy_work_busy');
    expect(over.body.limit).toBe(1);
    expect(over.headers.get('retry-after')).toBe('1');
    // Light calls of the same tenant are not heavy work.
    expect((await a.get(a.conv(convA))).status).toBe(200);
    // Another tenant's heavy call is not held by it.
    expect((await compact(b, convB)).status).toBe(200);

    // The hung summary ends (connection closed, the retry refused): the call finishes, the
    // tenant's slot is free again.
    await fake.close();
    expect((await held).status).toBe(200);
    expect((await compact(a, convA)).status).toBe(200);
  });
});

const chargeSuite = (label: string, env: () => Record<string, string>) => {
  describe(`heavy context calls: the rate-limit charge (${label})`, () => {
    let h: Harness;
    beforeAll(async () => {
      h = await startHarness({ ARBOR_CONTEXT_CHARGE_BYTES: '1024', ...env() });
    });
    afterAll(() => h.destroy());

    it('a context call takes one token per ARBOR_CONTEXT_CHARGE_BYTES assembled, beyond its own', async () => {
      const t = await h.createTenant('charged');
      const api = clientFor(h, t.apiKey);
      const id = await seed(api, 6, 4000); // ~25 kB of history: ~24 tokens
      const admin = clientFor(h, ADMIN_KEY);
      await admin.put(`/v1/tenants/${t.id}/limits`, {
        limit: { ratePerSecond: 0.001, burst: 10 },
      });
      const r = await api.post(api.conv(id, '/context'), {
        provider: 'anthropic',
        model: 'claude-sonnet-4-5',
        budgetTokens: 200_000,
      });
      expect(r.status).toBe(200);
      // One token for the request left 9; the charge took the rest and more.
      const next = await api.get(api.conv(id));
      expect(next.status).toBe(429);
      expect(next.body.code).toBe('rate_limited');
      expect(Number(next.headers.get('retry-after'))).toBeGreaterThan(1000);
    });

    it('a small context call costs what any request costs', async () => {
      const t = await h.createTenant('small');
      const api = clientFor(h, t.apiKey);
      const id = await api.start({ title: 'small' });
      await api.turn(id, null, [user('hi'), assistant('hello')]);
      const admin = clientFor(h, ADMIN_KEY);
      await admin.put(`/v1/tenants/${t.id}/limits`, { limit: { ratePerSecond: 0.001, burst: 3 } });
      const r = await api.post(api.conv(id, '/context'), {
        provider: 'anthropic',
        model: 'claude-sonnet-4-5',
        budgetTokens: 200_000,
      });
      expect(r.status).toBe(200);
      expect(r.headers.get('ratelimit')).toContain('r=2');
      expect((await api.get(api.conv(id))).status).toBe(200);
    });
  });
};

chargeSuite('in process', () => ({}));
describeWithRedis('the charge in Redis', () => {
  chargeSuite('Redis', () => ({
    REDIS_URL: TEST_REDIS_URL,
    ARBOR_REDIS_PREFIX: randomPrefix('heavy'),
  }));
});

describe("maxSnapshotPages: at most the provider's images per request", () => {
  let h: Harness;
  let api: Client;
  let id: string;
  beforeAll(async () => {
    h = await startHarness();
    api = clientFor(h, (await h.createTenant('pages')).apiKey);
    id = await seed(api, 2, 500);
  });
  afterAll(() => h.destroy());

  const ask = (provider: string, model: string, maxSnapshotPages: number) =>
    api.post(api.conv(id, '/context'), {
      provider,
      model,
      budgetTokens: 200_000,
      capabilities: { vision: true, maxSnapshotPages },
    });

  it.each([
    ['anthropic', 'claude-sonnet-4-5', 101, 100],
    ['anthropic', 'claude-opus-4-6', 601, 600],
    ['openai-chat', 'gpt-4o', 501, 500],
    ['gemini', 'gemini-3-pro-preview', 901, 900],
  ])('%s %s: %i pages is 400 snapshot_pages_over_limit (limit %i)', async (p, m, n, limit) => {
    const r = await ask(p, m, n);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({
      code: 'snapshot_pages_over_limit',
      provider: p,
      model: m,
      maxSnapshotPages: n,
      limit,
    });
    expect((await ask(p, m, limit)).status).toBe(200);
  });

  it('the report takes the same bound on its query', async () => {
    const over = await api.get(
      api.conv(
        id,
        '/context/report?provider=anthropic&model=claude-sonnet-4-5&maxSnapshotPages=101',
      ),
    );
    expect(over.status).toBe(400);
    expect(over.body.code).toBe('snapshot_pages_over_limit');
  });

  it("a tenant rule over the provider's bound is held to it (the receipt says the bound)", async () => {
    const put = await api.put('/v1/settings/context', {
      models: { 'claude-sonnet': { maxSnapshotPages: 1000 } },
    });
    expect(put.status).toBe(200);
    const r = await api.post(api.conv(id, '/context'), {
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      budgetTokens: 200_000,
    });
    expect(r.status).toBe(200);
    expect(r.body.receipt.capabilities.maxSnapshotPages).toBe(100);
  });
});
