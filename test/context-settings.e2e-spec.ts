/**
 * Context capability settings per tenant and model (`PUT/GET /v1/settings/context`) and per
 * request (`capabilities` on the context body, query fields on the report): the snapshot page
 * shape and vision the ladder runs with, recorded in `ContextAssembled` so a context assembled
 * before a settings change still reproduces byte for byte.
 */
import { createHash } from 'node:crypto';
import { checkBody } from '@arbor/context';
import { assistant, clientFor, user } from './support/api';
import { type Harness, startHarness } from './support/harness';

type Api = ReturnType<typeof clientFor>;

interface Rung {
  rung: string;
  applied: boolean;
  reason: string;
  details?: Record<string, unknown>;
}

const MODEL = 'claude-3-haiku-20240307';

describe('context capability settings (tenant and request)', () => {
  let h: Harness;
  let a: Api;
  let b: Api;

  beforeAll(async () => {
    h = await startHarness();
    a = clientFor(h, (await h.createTenant('a')).apiKey);
    b = clientFor(h, (await h.createTenant('b')).apiKey);
  });
  afterAll(async () => {
    await h.destroy();
  });

  /** A long middle of assistant text (not tool output): what snapshots are for. */
  const seed = async (api: Api, id: string): Promise<string> => {
    await api.start({ id, title: id });
    let tip: string | null = (
      await api.turn(id, null, [user('The task: keep the goal in mind.'), assistant('Understood.')])
    ).tip;
    // Token-dense text (ids and numbers, ~2 characters a token): worth imaging even on the
    // conservative shape's larger glyphs, whose page holds about a third of the default's text.
    const prose = (i: number) =>
      Array.from(
        { length: 60 },
        (_, k) =>
          `row ${i}.${k} id=${createHash('sha256').update(`${i}/${k}`).digest('hex').slice(0, 32)} v=${(i * 7919 + k * 104729) % 1000003}`,
      ).join('\n');
    for (let i = 0; i < 24; i++) {
      tip = (await api.turn(id, tip, [user(`question ${i}`), assistant(prose(i))])).tip;
    }
    return id;
  };

  const snapshotContext = (api: Api, id: string, extra: Record<string, unknown> = {}) =>
    api.post(api.conv(id, '/context'), {
      provider: 'anthropic',
      model: MODEL,
      budgetTokens: 200_000,
      mode: 'snapshot',
      ...extra,
    });

  const snapshotRung = (receipt: { rungs: Rung[] }): Rung | undefined =>
    receipt.rungs.find((r) => r.rung === 'snapshot');

  const pngs = (body: unknown): number =>
    (JSON.stringify(body).match(/"media_type":"image\/png"/g) ?? []).length;

  interface HandedOut {
    conv: string;
    contextId: string;
    body: unknown;
  }
  let first: HandedOut | null = null;
  /** A model the default table calls blind, given vision by the tenant. */
  let custom: HandedOut | null = null;

  it('starts with no settings, and refuses what is not valid', async () => {
    const empty = await a.get('/v1/settings/context');
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ models: {}, version: 0 });

    const badShape = await a.put('/v1/settings/context', {
      models: { 'claude-3-haiku': { snapshotShape: 'claude-giant' } },
    });
    expect(badShape.status).toBe(400);
    expect(badShape.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(badShape.body.code).toBe('unknown_snapshot_shape');
    expect(badShape.body.shape).toBe('claude-giant');
    expect(badShape.body.known).toContain('claude-conservative');

    const unknownField = await a.put('/v1/settings/context', {
      models: { 'claude-3-haiku': { snapshotShape: 'claude', fontSize: 20 } },
    });
    expect(unknownField.status).toBe(400);
    expect(unknownField.body.code).toBe('validation_failed');
    const badPrefix = await a.put('/v1/settings/context', { models: { 'bad prefix': {} } });
    expect(badPrefix.status).toBe(400);
    expect(badPrefix.body.code).toBe('validation_failed');
    const twice = await a.put('/v1/settings/context', {
      models: { 'Claude-3': { vision: true }, 'claude-3': { vision: false } },
    });
    expect(twice.status).toBe(400);
    expect(twice.body.code).toBe('validation_failed');

    expect((await h.call('GET', '/v1/settings/context')).status).toBe(401);
    expect((await h.call('PUT', '/v1/settings/context', { body: { models: {} } })).status).toBe(
      401,
    );
    const doc = await h.call('GET', '/docs/openapi.json');
    const paths = doc.body.paths as Record<string, Record<string, unknown>>;
    expect(Object.keys(paths['/v1/settings/context']).sort()).toEqual(['get', 'put']);
    expect(JSON.stringify(paths['/v1/conversations/{id}/context'])).toContain('capabilities');
    // Nothing invalid was stored.
    expect((await a.get('/v1/settings/context')).body).toEqual({ models: {}, version: 0 });
  });

  it("snapshots in the tenant's shape for the model; another tenant keeps the default", async () => {
    const put = await a.put('/v1/settings/context', {
      models: {
        'Claude-3-Haiku': { snapshotShape: 'claude-conservative' },
        'my-vision-model': { vision: true, snapshotShape: 'openai-tile' },
      },
    });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({
      models: {
        'claude-3-haiku': { snapshotShape: 'claude-conservative' },
        'my-vision-model': { vision: true, snapshotShape: 'openai-tile' },
      },
      version: 1,
    });
    // The same table again appends nothing.
    expect((await a.put('/v1/settings/context', { models: put.body.models })).body.version).toBe(1);

    const conv = await seed(a, 'prose');
    const r = await snapshotContext(a, conv);
    expect(r.status).toBe(200);
    const snap = snapshotRung(r.body.receipt);
    expect(snap?.applied).toBe(true);
    expect(snap?.reason).toMatch(/onto \d+ claude-conservative page\(s\)/);
    expect(snap?.details?.shape).toBe('claude-conservative');
    expect(r.body.receipt.capabilities).toEqual({
      vision: true,
      snapshotShape: 'claude-conservative',
      protectTokens: 16_000,
      minElisionSavings: 4_000,
      keepImages: 3,
      maxSnapshotPages: 100,
      tenantRule: 'claude-3-haiku',
      requestOverrides: [],
    });
    expect(pngs(r.body.body)).toBeGreaterThan(0);
    expect(checkBody('anthropic', r.body.body)).toEqual([]);
    first = { conv, contextId: r.body.contextId as string, body: r.body.body };

    // Recorded: the decision's shape, and the capabilities in the ContextAssembled request.
    const events = await a.events(conv);
    const decisions = events.filter((e) => e.type === 'CompactionApplied');
    expect(decisions.map((e) => (e.data.decision as { shape?: string }).shape)).toContain(
      'claude-conservative',
    );
    const assembled = events.filter((e) => e.type === 'ContextAssembled').pop()!;
    expect((assembled.data.request as { capabilities: unknown }).capabilities).toEqual({
      vision: true,
      snapshotShape: 'claude-conservative',
      protectTokens: 16_000,
      minElisionSavings: 4_000,
      keepImages: 3,
      maxSnapshotPages: 100,
    });
    const listed = await a.contexts(conv);
    expect((listed[0].capabilities as { snapshotShape: string }).snapshotShape).toBe(
      'claude-conservative',
    );

    // Vision switched on for a model the default table misjudges, with a shape of its own.
    const customConv = await seed(a, 'custom');
    const c = await a.post(a.conv(customConv, '/context'), {
      provider: 'openai-chat',
      model: 'my-vision-model-7b',
      budgetTokens: 200_000,
      mode: 'snapshot',
    });
    expect(c.status).toBe(200);
    expect(snapshotRung(c.body.receipt)?.applied).toBe(true);
    expect(snapshotRung(c.body.receipt)?.details?.shape).toBe('openai-tile');
    expect(c.body.receipt.capabilities).toMatchObject({
      vision: true,
      snapshotShape: 'openai-tile',
      tenantRule: 'my-vision-model',
    });
    expect(checkBody('openai-chat', c.body.body)).toEqual([]);
    custom = { conv: customConv, contextId: c.body.contextId as string, body: c.body.body };

    // Tenant B, same conversation id, same model: its own (empty) settings, the default shape.
    await seed(b, 'prose');
    const other = await snapshotContext(b, 'prose');
    expect(other.status).toBe(200);
    expect(snapshotRung(other.body.receipt)?.details?.shape).toBe('claude-dense');
    expect(other.body.receipt.capabilities.tenantRule).toBeNull();
    expect((await b.get('/v1/settings/context')).body).toEqual({ models: {}, version: 0 });
  });

  it("a request's capabilities beat the tenant's setting, field by field", async () => {
    const conv = await seed(a, 'override');
    const r = await snapshotContext(a, conv, {
      capabilities: { snapshotShape: 'claude', maxSnapshotPages: 30 },
    });
    expect(r.status).toBe(200);
    expect(snapshotRung(r.body.receipt)?.details?.shape).toBe('claude');
    expect(r.body.receipt.capabilities).toMatchObject({
      snapshotShape: 'claude',
      maxSnapshotPages: 30,
      tenantRule: 'claude-3-haiku',
      requestOverrides: ['maxSnapshotPages', 'snapshotShape'],
    });

    const bad = await snapshotContext(a, conv, { capabilities: { snapshotShape: 'nope' } });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('unknown_snapshot_shape');
    expect(bad.body.path).toBe('body.capabilities.snapshotShape');
    const badField = await snapshotContext(a, conv, { capabilities: { limits: {} } });
    expect(badField.status).toBe(400);
    expect(badField.body.code).toBe('validation_failed');
  });

  it('vision:false skips the snapshot rung, and the receipt says why', async () => {
    const conv = await seed(a, 'blind');
    const r = await snapshotContext(a, conv, { capabilities: { vision: false } });
    expect(r.status).toBe(200);
    const snap = snapshotRung(r.body.receipt);
    expect(snap?.applied).toBe(false);
    expect(snap?.reason).toBe(`${MODEL} does not accept images`);
    expect(r.body.receipt.capabilities).toMatchObject({
      vision: false,
      snapshotShape: 'claude-conservative',
    });
    expect(pngs(r.body.body)).toBe(0);
  });

  it('the report takes the same fields as query parameters', async () => {
    const conv = first!.conv;
    const report = (query: string) =>
      a.get(a.conv(conv, `/context/report?provider=anthropic&model=${MODEL}${query}`));
    const seeing = await report('');
    expect(seeing.status).toBe(200);
    expect(seeing.body.capabilities.snapshotShape).toBe('claude-conservative');
    expect(seeing.body.estimated.sections.snapshots).toBeGreaterThan(0);
    // Without vision the pages in force are left out of the estimate.
    const blind = await report('&vision=false');
    expect(blind.status).toBe(200);
    expect(blind.body.capabilities).toMatchObject({ vision: false, requestOverrides: ['vision'] });
    expect(blind.body.estimated.sections.snapshots).toBe(0);
    const none = await report('&snapshotShape=none&keepImages=1');
    expect(none.body.capabilities).toMatchObject({ snapshotShape: null, keepImages: 1 });
    const bad = await report('&snapshotShape=claude-giant');
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('unknown_snapshot_shape');
    expect((await report('&vision=maybe')).body.code).toBe('validation_failed');
    expect((await report('&keepImages=-1')).body.code).toBe('validation_failed');
  });

  it('reproduces a context with the capabilities it recorded, after a settings change and a restart', async () => {
    const { conv } = first!;
    // The model loses vision in the tenant's settings: a new context leaves the pages out…
    const put = await a.put('/v1/settings/context', {
      models: { 'claude-3-haiku': { vision: false } },
    });
    expect(put.body.version).toBe(2);
    const now = await a.post(a.conv(conv, '/context'), {
      provider: 'anthropic',
      model: MODEL,
      budgetTokens: 200_000,
    });
    expect(now.status).toBe(200);
    expect(pngs(now.body.body)).toBe(0);
    expect(now.body.receipt.notApplied.length).toBeGreaterThan(0);
    expect(now.body.receipt.notApplied[0].reason).toMatch(/does not accept images/);

    // …but the earlier one still reproduces byte for byte, pages and all.
    // The custom model's rule is gone from the table too (a PUT replaces it), and the default
    // table calls that model blind: only the recorded capabilities can bring its pages back.
    const check = async () => {
      for (const [handed, images] of [
        [first!, /"media_type":"image\/png"/g],
        [custom!, /data:image\/png;base64,/g],
      ] as const) {
        const r = await a.get(a.conv(handed.conv, `/contexts/${handed.contextId}`));
        expect(r.status).toBe(200);
        expect({ match: r.body.match, mismatch: r.body.mismatch }).toEqual({
          match: true,
          mismatch: undefined,
        });
        expect(JSON.stringify(r.body.body)).toBe(JSON.stringify(handed.body));
        expect((JSON.stringify(r.body.body).match(images) ?? []).length).toBeGreaterThan(0);
      }
    };
    await check();

    await h.restart();
    expect((await a.get('/v1/settings/context')).body).toEqual({
      models: { 'claude-3-haiku': { vision: false } },
      version: 2,
    });
    expect((await b.get('/v1/settings/context')).body).toEqual({ models: {}, version: 0 });
    await check();
    const fresh = await seed(a, 'after-restart');
    const r = await snapshotContext(a, fresh);
    expect(r.status).toBe(200);
    expect(snapshotRung(r.body.receipt)?.applied).toBe(false);
    expect(snapshotRung(r.body.receipt)?.reason).toBe(`${MODEL} does not accept images`);
    expect(r.body.receipt.capabilities.tenantRule).toBe('claude-3-haiku');
  });
});
