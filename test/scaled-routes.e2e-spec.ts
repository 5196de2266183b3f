/**
 * Every call of the HTTP API on the scaled shape: the walks of test/contract.e2e-spec.ts
 * (support/every-route: each documented 2xx answer, then every route without a key and with
 * unknown ids) against two `arbor serve --projector off` replicas and one `arbor project`
 * worker over one SQLite log directory and a redis-server of this file's own — every non-GET call
 * to replica A, every GET (and the live stream) to replica B — and the same walk on the embedded
 * shape (the in-process harness, SQLite read models). Every answer is checked against the OpenAPI
 * document on the way (`httpCall`), then the two runs are compared call by call (status and body),
 * after normalizing what legitimately differs between two runs (support/scaled-scenario, plus the few
 * answers that describe the process rather than the data: see DESCRIBES_THE_PROCESS).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROUTES } from '@arbor/contract';
import { routeOf } from './support/contract-check';
import { type RouteCaller, walkCommonErrors, walkEveryRoute } from './support/every-route';
import { ADMIN_KEY, type CallOptions, httpCall, startHarness } from './support/harness';
import { normalizer } from './support/scaled-scenario';
import {
  describeWithRedisServer,
  type Proc,
  type RedisServer,
  type Replica,
  scaledEnv,
  spawnShape,
  startRedisServer,
} from './support/scaled';

jest.setTimeout(600_000);

interface Recorded {
  method: string;
  url: string;
  status: number;
  text: string;
}

/**
 * Answers that describe the serving process, not the data, so they differ by shape by design;
 * only their status is compared (their bodies were checked against the document):
 * - `GET /metrics`: counters of this process (this replica's requests; the embedded projector's).
 * - `GET /v1/admin/projections`: this process's own projector — on a `--projector off` replica
 *   `running: false, position: null`; the embedded one's position in the log.
 * Every other answer (`/health` and the rebuild's included) is compared whole.
 */
const DESCRIBES_THE_PROCESS = new Set(['GET /metrics', 'GET /v1/admin/projections']);

/**
 * When the scaled shape's log is EventStoreDB (EVENTSTORE_CONNECTION_STRING): answers that name
 * the log's kind and its positions (byte offsets there, 1, 2, 3 in SQLite) differ by design; only
 * their status is compared, and the scaled `GET /v1/admin/log` must say `eventstoredb`.
 */
const scaledOnEsdb = (): boolean => (process.env.EVENTSTORE_CONNECTION_STRING ?? '').trim() !== '';
const DESCRIBES_THE_LOG = new Set(['GET /v1/admin/log', 'POST /v1/admin/projections/rebuild']);

/** A caller that records every answer; GETs go to `readBase`, everything else to `writeBase`. */
const recording = (writeBase: string, readBase: string) => {
  const answers: Recorded[] = [];
  const caller: RouteCaller = {
    streamBase: readBase,
    call: async (method: string, url: string, options?: CallOptions) => {
      const base = method === 'GET' ? readBase : writeBase;
      const r = await httpCall(base, method, url, options);
      answers.push({ method, url, status: r.status, text: r.text });
      return r;
    },
  };
  return { caller, answers };
};

/** Keys and tenant ids the run was given: aliased like every generated id. */
const secretsOf = (answers: Recorded[]): string[] => {
  const out: string[] = [];
  const visit = (v: unknown, url: string): void => {
    if (Array.isArray(v)) v.forEach((x) => visit(x, url));
    else if (v !== null && typeof v === 'object')
      for (const [k, x] of Object.entries(v)) {
        const tenantId = k === 'id' && url === '/v1/tenants';
        if (typeof x === 'string' && (k === 'apiKey' || k === 'keyId' || tenantId)) out.push(x);
        else visit(x, url);
      }
  };
  for (const a of answers) {
    try {
      visit(JSON.parse(a.text), a.url);
    } catch {
      // not JSON (markdown, JSONL, metrics): it carries no secret of its own
    }
  }
  // Longest first: a key id is part of its API key (`arb_<keyId>_<secret>`).
  return [...new Set(out)].sort((x, y) => y.length - x.length);
};

/** `METHOD template status` per call, normalized and comparable between the two runs. */
const comparable = (answers: Recorded[], firstFrame: string): string[] => {
  const normalize = normalizer();
  const secrets = secretsOf(answers);
  const lines = answers.map((a) => {
    const template = routeOf(a.method, a.url.split('?')[0]) ?? a.url;
    const what = `${a.method} ${template}`;
    const body = DESCRIBES_THE_PROCESS.has(what)
      ? '(describes the process)'
      : scaledOnEsdb() && DESCRIBES_THE_LOG.has(what)
        ? '(describes the log)'
        : a.text;
    // Page cursors are sealed with the deployment's own secret (apps/api conversations/cursor).
    const sealed = body.replace(/"next":"[^"]+"/g, '"next":"<cursor>"');
    return normalize(`${a.method} ${a.url} → ${a.status} ${sealed}`, secrets);
  });
  lines.push(normalize(`stream first frame ${firstFrame}`, secrets));
  return lines;
};

/** Every documented status of every route the recorded answers reached. */
const reached = (answers: Recorded[], streamed: boolean): Set<string> => {
  const out = new Set<string>();
  for (const a of answers) {
    const template = routeOf(a.method, a.url.split('?')[0].replace(/\/+$/, '') || '/');
    if (template !== null) out.add(`${a.method} ${template} ${a.status}`);
  }
  if (streamed) out.add('GET /v1/conversations/{id}/stream 200');
  return out;
};

describeWithRedisServer('scaled shape: every route of the API on two replicas + a worker', () => {
  let redis: RedisServer;
  let dataDir: string;
  const procs: Proc[] = [];
  let a: Replica;
  let b: Replica;

  beforeAll(async () => {
    redis = await startRedisServer();
    const env = scaledEnv(redis.url);
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-scaled-routes-'));
    ({ a, b } = await spawnShape(dataDir, env, procs));
  }, 600_000);

  afterAll(async () => {
    for (const p of procs) await p.kill().catch(() => undefined);
    await redis?.kill();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers every call (non-GETs on replica A, GETs and the stream on B), the common errors of every route included, as the embedded shape does', async () => {
    const embedded = await startHarness({ REDIS_URL: '' });
    const one = recording(embedded.baseUrl, embedded.baseUrl);
    let expectedWalk;
    try {
      expectedWalk = await walkEveryRoute(one.caller);
      await walkCommonErrors(one.caller);
    } finally {
      await embedded.destroy();
    }
    const two = recording(a.url, b.url);
    const gotWalk = await walkEveryRoute(two.caller);
    await walkCommonErrors(two.caller);

    // The replicas reached every documented 2xx answer, as the walk does on the embedded shape.
    const documented2xx = ROUTES.flatMap((r) =>
      Object.keys(r.responses)
        .filter((s) => s.startsWith('2'))
        .map((s) => `${r.method.toUpperCase()} ${r.path} ${s}`),
    );
    const got = reached(two.answers, true);
    expect(documented2xx.filter((k) => !got.has(k))).toEqual([]);
    // Both shapes were really used: writes on A, reads on B.
    expect(two.answers.filter((x) => x.method === 'GET').length).toBeGreaterThan(30);
    expect(two.answers.filter((x) => x.method !== 'GET').length).toBeGreaterThan(30);

    const expected = comparable(one.answers, JSON.stringify(expectedWalk.firstFrame));
    const actual = comparable(two.answers, JSON.stringify(gotWalk.firstFrame));
    expect(actual.length).toBe(expected.length);
    // Each differing answer: its call and both texts from a little before the first difference.
    const differing = expected.flatMap((e, i) => {
      const x = actual[i];
      if (x === e) return [];
      let at = 0;
      while (at < e.length && e[at] === x[at]) at++;
      const from = Math.max(0, at - 200);
      const call = e.slice(0, e.indexOf(' → '));
      return [{ call, embedded: e.slice(from, at + 300), scaled: x.slice(from, at + 300) }];
    });
    expect(differing).toEqual([]);
    if (scaledOnEsdb()) {
      const log = two.answers.find((x) => x.method === 'GET' && x.url === '/v1/admin/log');
      expect(log?.text).toContain('"kind":"eventstoredb"');
    }
    // A sanity check that the comparison compares something: reads carried content.
    expect(actual.some((x) => x.startsWith('GET') && x.includes('answer b'))).toBe(true);
  });

  it('a page cursor handed out by one replica continues the list on the other (the cursor key comes from the shared audit secret)', async () => {
    const made = await httpCall(a.url, 'POST', '/v1/tenants', {
      key: ADMIN_KEY,
      body: { name: 'cursors' },
    });
    expect(made.status).toBe(201);
    const key = made.body.apiKey as string;
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const c = await httpCall(a.url, 'POST', '/v1/conversations', {
        key,
        body: { title: `c${i}` },
      });
      expect(c.status).toBe(201);
      ids.push(c.body.id as string);
    }
    const pageOn = async (url: string, cursor?: string) => {
      const q = cursor === undefined ? '' : `&cursor=${encodeURIComponent(cursor)}`;
      const r = await httpCall(url, 'GET', `/v1/conversations?limit=1${q}`, { key });
      expect(r.status).toBe(200);
      return r.body as { items: { id: string }[]; next?: string };
    };
    const first = await pageOn(a.url);
    const second = await pageOn(b.url, first.next);
    const third = await pageOn(a.url, second.next);
    expect([...first.items, ...second.items, ...third.items].map((c) => c.id)).toEqual(ids);
    expect(third.next).toBeUndefined();
  });
});
