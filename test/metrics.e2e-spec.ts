import { assistant, clientFor, msg, text, toolResult, toolUse, user } from './support/api';
import { ADMIN_KEY, type Harness, startHarness } from './support/harness';
import { openSse } from './support/sse';
import { httpCall } from './support/http';
import { MetricsPort } from '../apps/api/src/observability/metrics-port';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The value of one sample line of the Prometheus text (`name{labels} value`), or undefined. */
const sample = (
  text: string,
  name: string,
  labels: Record<string, string> = {},
): number | undefined => {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (m === null || m[1] !== name) continue;
    const got = Object.fromEntries(
      [...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1], x[2]]),
    );
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) return Number(m[3]);
  }
  return undefined;
};

describe('X-Request-Id', () => {
  let h: Harness;
  let key: string;
  beforeAll(async () => {
    h = await startHarness();
    key = (await h.createTenant('rid')).apiKey;
  });
  afterAll(async () => {
    await h.destroy();
  });

  it('is on every answer: 2xx, 4xx from a guard or the auth hook, unknown routes, a live stream', async () => {
    const id = (await h.call('POST', '/v1/conversations', { key, body: {} })).body.id as string;
    const answers = [
      await h.call('GET', '/health'),
      await h.call('GET', `/v1/conversations/${id}`, { key }),
      await h.call('GET', '/v1/conversations', { key: 'arb_nope_nope' }),
      await h.call('GET', '/v1/conversations/x/messages?limit=0', { key }),
      await h.call('GET', '/no/such/route'),
      await h.call('GET', '/metrics', { key }),
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 200, 401, 400, 404, 401]);
    for (const a of answers) expect(a.headers.get('x-request-id')).toMatch(UUID);
    expect(new Set(answers.map((a) => a.headers.get('x-request-id'))).size).toBe(answers.length);
    const live = await openSse(h.baseUrl, `/v1/conversations/${id}/stream`, key);
    expect(live.headers.get('x-request-id')).toMatch(UUID);
    live.close();
  });

  it("keeps the caller's id when it is sane, replaces it otherwise", async () => {
    const kept = await h.call('GET', '/health', { headers: { 'x-request-id': 'trace-42.a:b' } });
    expect(kept.headers.get('x-request-id')).toBe('trace-42.a:b');
    for (const bad of ['x'.repeat(129), 'has space', 'semi;colon', '']) {
      const r = await h.call('GET', '/health', { headers: { 'x-request-id': bad } });
      expect(r.headers.get('x-request-id')).toMatch(UUID);
    }
  });
});

describe('GET /metrics', () => {
  let h: Harness;
  let api: ReturnType<typeof clientFor>;
  beforeAll(async () => {
    h = await startHarness({ ARBOR_METRICS_PORT: '0' });
    api = clientFor(h, (await h.createTenant('metrics')).apiKey);
  });
  afterAll(async () => {
    await h.destroy();
  });

  const scrape = async (): Promise<string> => {
    const r = await h.call('GET', '/metrics', { key: ADMIN_KEY });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return r.text;
  };

  it('is admin-only on the API port', async () => {
    expect((await h.call('GET', '/metrics')).status).toBe(401);
    expect((await h.call('GET', '/metrics', { key: api.key })).status).toBe(401);
    expect((await h.call('GET', '/metrics', { key: ADMIN_KEY })).status).toBe(200);
  });

  it('counts requests by route template and status, with latency histograms, and turn commits', async () => {
    const before = await scrape();
    const route = { method: 'POST', route: '/v1/conversations/:id/turns', status: '201' };
    const was = sample(before, 'arbor_http_requests_total', route) ?? 0;
    const turnsWere = sample(before, 'arbor_turn_commits_total', { replayed: 'false' }) ?? 0;
    const id = await api.start();
    await api.turn(id, null, [user('q'), assistant('a')], { turnId: 'once' });
    const replay = await api.post(api.conv(id, '/turns'), {
      parentId: null,
      messages: [user('q'), assistant('a')],
      turnId: 'once',
    });
    expect([replay.status, replay.body.replayed]).toEqual([200, true]);
    await api.turn(id, undefined, [user('q2'), assistant('a2')]);
    const after = await scrape();
    expect(sample(after, 'arbor_http_requests_total', route)).toBe(was + 2);
    expect(sample(after, 'arbor_http_requests_total', { ...route, status: '200' })).toBe(1);
    expect(sample(after, 'arbor_http_request_duration_seconds_count', route)).toBe(was + 2);
    expect(
      sample(after, 'arbor_http_request_duration_seconds_bucket', { ...route, le: '+Inf' }),
    ).toBe(was + 2);
    expect(sample(after, 'arbor_turn_commits_total', { replayed: 'false' })).toBe(turnsWere + 2);
    expect(sample(after, 'arbor_turn_commits_total', { replayed: 'true' })).toBeGreaterThanOrEqual(
      1,
    );
    // Unknown paths are one label, not one series per URL.
    await h.call('GET', '/nowhere/abc');
    expect(
      sample(await scrape(), 'arbor_http_requests_total', { route: 'unmatched', status: '404' }),
    ).toBeGreaterThanOrEqual(1);
  });

  it('shows the projector lag of partition "0", lease changes (0), and the other families', async () => {
    const text = await scrape();
    expect(sample(text, 'arbor_projector_lag_events', { partition: '0' })).toBe(0);
    expect(sample(text, 'arbor_projector_lag_seconds', { partition: '0' })).toBe(0);
    expect(sample(text, 'arbor_projector_lease_changes_total', { partition: '0' })).toBe(0);
    for (const family of [
      'arbor_redis_errors_total',
      'arbor_rate_limited_total',
      'arbor_ladder_rungs_applied_total',
    ]) {
      expect(text).toContain(`# TYPE ${family} counter`);
    }
  });

  it('counts the ladder rungs applied to contexts handed out', async () => {
    const id = await api.start();
    let tip: string | null = null;
    for (let i = 0; i < 10; i++) {
      const call = `call_${i}`;
      tip = (
        await api.turn(id, tip, [
          user(`step ${i}`),
          msg('assistant', [text(`running ${i}`), toolUse(call, 'bash', { cmd: `ls ${i}` })]),
          msg('user', [toolResult(call, `line ${i} `.repeat(600))]),
          assistant(`step ${i} done`),
        ])
      ).tip;
    }
    const r = await api.post(api.conv(id, '/context'), {
      provider: 'anthropic',
      model: 'claude-x',
      budgetTokens: 12_000,
    });
    expect(r.status).toBe(200);
    const applied = (r.body.receipt.rungs as { rung: string; applied: boolean }[]).filter(
      (x) => x.applied,
    );
    expect(applied.length).toBeGreaterThan(0);
    const scraped = await scrape();
    for (const rung of new Set(applied.map((x) => x.rung))) {
      expect(sample(scraped, 'arbor_ladder_rungs_applied_total', { rung })).toBeGreaterThanOrEqual(
        1,
      );
    }
  });

  it('is served without credentials on ARBOR_METRICS_PORT (and nothing else there)', async () => {
    const port = h.app.get(MetricsPort).port();
    expect(port).not.toBeNull();
    const base = `http://127.0.0.1:${port}`;
    const r = await httpCall(base, 'GET', '/metrics', { check: false });
    expect(r.status).toBe(200);
    expect(r.text).toContain('# TYPE arbor_turn_commits_total counter');
    expect((await httpCall(base, 'GET', '/v1/conversations', { check: false })).status).toBe(404);
  });
});
