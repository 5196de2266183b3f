import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { assistant, clientFor, type Client, msg, text, toolResult, user } from './support/api';
import { ADMIN_KEY, type Harness, startHarness } from './support/harness';
import { openSocket, rawRequest } from './support/raw-http';

/** `{"a":{"a":…1…}}` nested `depth` objects deep. */
const nested = (depth: number): string => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

const problemOf = (r: { status: number; headers: Headers; body: { code?: unknown } }) => ({
  status: r.status,
  type: r.headers.get('content-type')?.split(';')[0],
  code: r.body?.code,
});

describe('free-form JSON: one depth/size rule for every field, checked without recursion', () => {
  let h: Harness;
  let c: Client;
  let id: string;
  beforeAll(async () => {
    h = await startHarness({ ARBOR_JSON_MAX_DEPTH: '64', ARBOR_JSON_MAX_BYTES: '65536' });
    c = clientFor(h, (await h.createTenant('deep')).apiKey);
    id = await c.start();
    await c.turn(id, null, [user('q'), assistant('a')]);
  });
  afterAll(async () => {
    await h.destroy();
  });

  const head = async () =>
    (await h.call('GET', '/v1/admin/log', { key: ADMIN_KEY })).body.position as unknown;
  const turnWithInput = (input: string) =>
    `{"messages":[{"role":"user","content":[{"type":"text","text":"q"}]},` +
    `{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"run","input":${input}}]},` +
    `{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]},` +
    `{"role":"assistant","content":[{"type":"text","text":"a"}]}]}`;

  // The requests of the report: ~4,500 levels in each free-form field answered 500 (stack overflow).
  const deepRequests = (depth: number) =>
    [
      ['POST', '/v1/conversations', `{"metadata":${nested(depth)}}`, 'body.metadata'],
      [
        'POST',
        `/v1/conversations/${id}/failures`,
        `{"input":${nested(depth)},"error":"e"}`,
        'body.input',
      ],
      [
        'POST',
        `/v1/conversations/${id}/failures`,
        `{"input":"i","error":${nested(depth)}}`,
        'body.error',
      ],
      ['POST', `/v1/conversations/${id}/forks`, `{"metadata":${nested(depth)}}`, 'body.metadata'],
      [
        'POST',
        `/v1/conversations/${id}/context`,
        `{"provider":"anthropic","model":"claude-sonnet-4-5","budgetTokens":10000,"tools":[{"name":"run","input_schema":${nested(depth)}}]}`,
        'body.tools[0].input_schema',
      ],
      [
        'POST',
        `/v1/conversations/${id}/turns`,
        turnWithInput(nested(depth)),
        'body.messages[1].content[0].input',
      ],
    ] as const;

  it.each([4500, 100_000])(
    '%i levels in any field: 400 json_too_deep, nothing appended',
    async (depth) => {
      for (const [method, url, raw] of deepRequests(depth)) {
        const before = await head();
        const r = await h.call(method, url, { key: c.key, raw });
        expect({ url, ...problemOf(r) }).toEqual({
          url,
          status: 400,
          type: 'application/problem+json',
          code: 'json_too_deep',
        });
        expect(await head()).toEqual(before);
      }
    },
  );

  it('one level over the field limit names the field; the limit itself is accepted', async () => {
    for (const [method, url, raw, path] of deepRequests(65)) {
      const r = await h.call(method, url, { key: c.key, raw });
      expect({ url, ...problemOf(r) }).toMatchObject({ status: 400, code: 'json_too_deep' });
      expect(r.body.errors).toEqual([expect.objectContaining({ path, code: 'too_deep' })]);
    }
    for (const [method, url, raw] of deepRequests(64)) {
      const r = await h.call(method, url, { key: c.key, raw });
      expect({ url, status: r.status < 300 }).toEqual({ url, status: true });
    }
  });

  it('a field over ARBOR_JSON_MAX_BYTES is 413 field_too_large with its path', async () => {
    const big = { blob: 'x'.repeat(70_000) };
    const r = await c.post('/v1/conversations', { metadata: big });
    expect(problemOf(r)).toEqual({
      status: 413,
      type: 'application/problem+json',
      code: 'field_too_large',
    });
    expect(r.body.errors[0].path).toBe('body.metadata');
    const f = await c.post(c.conv(id, '/failures'), { input: 'i', error: big });
    expect(f.body.errors[0].path).toBe('body.error');
    // Settings are bounded by their schema (≤ 256 prefixes of bounded fields) below this rule.
  });

  it('the body parser refuses a 10-million-level body by counting, before parsing it', async () => {
    const depth = 10_000_000;
    const r = await h.call('POST', '/v1/conversations', {
      key: c.key,
      raw: '['.repeat(depth) + ']'.repeat(depth),
    });
    expect(problemOf(r)).toMatchObject({ status: 400, code: 'json_too_deep' });
  });

  it('`__proto__` and `constructor` keys are data: stored, answered byte for byte, no pollution', async () => {
    const metadata =
      '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":1}},"k":1}';
    const started = await h.call('POST', '/v1/conversations', {
      key: c.key,
      raw: `{"metadata":${metadata}}`,
    });
    expect(started.status).toBe(201);
    const conv = await c.get(`/v1/conversations/${started.body.id}`);
    expect(conv.text).toContain(`"metadata":${metadata}`);
    const input = '{"__proto__":{"x":1},"constructor":{"prototype":{"y":2}}}';
    const t = await h.call('POST', `/v1/conversations/${started.body.id}/turns`, {
      key: c.key,
      raw: turnWithInput(input),
    });
    expect(t.status).toBe(201);
    const m = await c.get(`/v1/conversations/${started.body.id}/messages/${t.body.messageIds[1]}`);
    expect(m.text).toContain(`"input":${input}`);
    const f = await h.call('POST', `/v1/conversations/${started.body.id}/failures`, {
      key: c.key,
      raw: `{"input":${input},"error":{"__proto__":"e"}}`,
    });
    expect(f.status).toBe(201);
    const retry = await c.get(`/v1/conversations/${started.body.id}/retry`);
    expect(retry.text).toContain(`"input":${input}`);
    expect(retry.text).toContain(`"error":{"__proto__":"e"}`);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });
});

describe('edges: headers, encodings, query integers, auth scheme', () => {
  let h: Harness;
  let c: Client;
  let id: string;
  beforeAll(async () => {
    h = await startHarness();
    c = clientFor(h, (await h.createTenant('edges')).apiKey);
    id = await c.start();
  });
  afterAll(async () => {
    await h.destroy();
  });

  it('a 100 KB Authorization header is 431 headers_too_large as problem+json', async () => {
    const r = await rawRequest(
      h.baseUrl,
      `GET /v1/conversations HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${'k'.repeat(100_000)}\r\n\r\n`,
    );
    expect(r.status).toBe(431);
    expect(r.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(r.body)).toMatchObject({ status: 431, code: 'headers_too_large' });
  });

  it('a NUL in Content-Type is 400 malformed_header as problem+json', async () => {
    const body = '{"title":"x"}';
    const r = await rawRequest(
      h.baseUrl,
      `POST /v1/conversations HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${c.key}\r\n` +
        `Content-Type: application/json\u0000x\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    expect(r.status).toBe(400);
    expect(r.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(r.body)).toMatchObject({ code: 'malformed_header' });
  });

  it('invalid UTF-8 is 400 invalid_utf8 with the offset of the bad byte', async () => {
    const body = Buffer.concat([
      Buffer.from('{"title":"ab'),
      Buffer.from([0xc3, 0x28]),
      Buffer.from('"}'),
    ]);
    const r = await rawRequest(
      h.baseUrl,
      Buffer.concat([
        Buffer.from(
          `POST /v1/conversations HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${c.key}\r\n` +
            `Content-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
        ),
        body,
      ]),
    );
    expect(r.status).toBe(400);
    expect(r.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(r.body)).toMatchObject({ code: 'invalid_utf8', offset: 12 });
  });

  it('the bearer scheme is case-insensitive; 401s carry WWW-Authenticate: Bearer', async () => {
    for (const scheme of ['bearer', 'BEARER', 'Bearer']) {
      const r = await h.call('GET', '/v1/conversations', {
        headers: { authorization: `${scheme} ${c.key}` },
      });
      expect({ scheme, status: r.status }).toEqual({ scheme, status: 200 });
    }
    const admin = await h.call('POST', '/v1/tenants', {
      headers: { authorization: `bearer ${ADMIN_KEY}` },
      body: {},
    });
    expect(admin.status).toBe(201);
    for (const auth of [undefined, 'Bearer nope', 'Basic abc']) {
      const r = await h.call('GET', c.conv(id), {
        headers: auth === undefined ? {} : { authorization: auth },
      });
      expect(r.status).toBe(401);
      expect(r.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
    }
  });

  it('every answer carries Cache-Control: no-store (success, problem, unknown route)', async () => {
    for (const r of [
      await c.get(c.conv(id)),
      await c.get(c.conv('nope')),
      await h.call('GET', '/nope'),
      await h.call('GET', '/health'),
      await h.call('GET', c.conv(id)),
    ]) {
      expect(r.headers.get('cache-control')).toBe('no-store');
    }
  });

  it.each(['0x10', '1e3', ' 5', '5 ', '+5', '5.0', '-1', '٥', ''])(
    'limit=%j is refused (strict decimal integers)',
    async (limit) => {
      for (const url of ['/v1/conversations', c.conv(id, '/events'), c.conv(id, '/messages')]) {
        const r = await c.get(`${url}?limit=${encodeURIComponent(limit)}`);
        expect({ url, ...problemOf(r) }).toEqual({
          url,
          status: 400,
          type: 'application/problem+json',
          code: 'validation_failed',
        });
      }
      const e = await c.get(c.conv(id, `/events?fromRevision=${encodeURIComponent(limit)}`));
      expect(e.status).toBe(400);
    },
  );

  it('limit=16 and fromRevision=0 (plain digits) are taken', async () => {
    expect((await c.get('/v1/conversations?limit=16')).status).toBe(200);
    expect((await c.get(c.conv(id, '/events?fromRevision=0&limit=1'))).status).toBe(200);
  });
});

describe('cursors and positions reveal nothing of other tenants', () => {
  let h: Harness;
  let a: Client;
  let b: Client;
  beforeAll(async () => {
    h = await startHarness();
    a = clientFor(h, (await h.createTenant('a')).apiKey);
    b = clientFor(h, (await h.createTenant('b')).apiKey);
  });
  afterAll(async () => {
    await h.destroy();
  });

  it('list cursors are opaque, reproducible, and bound to tenant and list', async () => {
    for (let i = 0; i < 3; i++) await a.start();
    const first = await a.get('/v1/conversations?limit=1');
    const again = await a.get('/v1/conversations?limit=1');
    const cursor = first.body.next as string;
    expect(typeof cursor).toBe('string');
    // The same page gives the same cursor (answers are reproducible); the bytes hold no counter.
    expect(again.body.next).toBe(cursor);
    const decoded = Buffer.from(cursor, 'base64url').toString('latin1');
    expect(() => JSON.parse(decoded) as unknown).toThrow();
    expect(decoded).not.toContain('conversations');
    const page2 = await a.get(`/v1/conversations?limit=1&cursor=${cursor}`);
    const page2b = await a.get(`/v1/conversations?limit=1&cursor=${again.body.next}`);
    expect(page2.body.items).toEqual(page2b.body.items);
    expect(page2.body.items[0].id).not.toBe(first.body.items[0].id);
    // Another tenant's cursor, another list's cursor, an edited cursor: refused alike.
    const other = await b.get(`/v1/conversations?limit=1&cursor=${cursor}`);
    expect(problemOf(other)).toMatchObject({ status: 400, code: 'validation_failed' });
    const convId = first.body.items[0].id as string;
    await a.turn(convId, null, [user('q'), assistant('a')]);
    const events = await a.get(a.conv(convId, '/events?limit=1'));
    const wrongList = await a.get(`/v1/conversations?limit=1&cursor=${events.body.next}`);
    expect(wrongList.status).toBe(400);
    const flipped = Buffer.from(cursor, 'base64url');
    flipped[flipped.length - 1] ^= 1;
    const edited = await a.get(`/v1/conversations?limit=1&cursor=${flipped.toString('base64url')}`);
    expect(edited.body.errors[0].code).toBe('invalid_cursor');
  });

  it("a tenant's events carry stream revisions, no global position, whatever others wrote", async () => {
    const mine = await a.start();
    const before = (await a.get(a.conv(mine, '/events'))).text;
    for (let i = 0; i < 5; i++) await b.turn(await b.start(), null, [user('q'), assistant('x')]);
    expect((await a.get(a.conv(mine, '/events'))).text).toBe(before);
    const second = await a.start();
    const ev = (await a.get(a.conv(second, '/events'))).body.items;
    expect(ev[0]).toEqual({
      revision: 0,
      type: 'ConversationStarted',
      data: expect.any(Object),
      metadata: expect.any(Object),
    });
    const r = await a.turn(second, null, [user('q'), msg('assistant', [text('a')])]);
    const replay = await a.get(a.conv(second, `/replay?revision=${r.revision}`));
    expect(replay.body.event).not.toHaveProperty('position');
    void toolResult;
  });
});

describe('connections: authentication before the body, timeouts, per-client limits', () => {
  let h: Harness;
  let key: string;
  beforeAll(async () => {
    h = await startHarness({
      ARBOR_REQUEST_TIMEOUT_MS: '1500',
      ARBOR_HEADERS_TIMEOUT_MS: '1000',
      ARBOR_MAX_CONNECTIONS_PER_IP: '8',
    });
    key = (await h.createTenant('conn')).apiKey;
  });
  afterAll(async () => {
    await h.destroy();
  });

  it('an unauthenticated 30 MB post is answered 401 from its headers alone, and closed', async () => {
    const r = await rawRequest(
      h.baseUrl,
      'POST /v1/conversations HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
        `Content-Length: ${30 * 1024 * 1024}\r\n\r\n{"metadata":{"x":"`,
      { waitMs: 5000 },
    );
    expect(r.status).toBe(401);
    expect(r.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(r.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(r.headers.connection).toBe('close');
    expect(r.closedAfterMs).not.toBeNull();
  });

  it('a wrong key on a tenant route and a tenant key on an admin route are refused before the body', async () => {
    for (const [url, auth] of [
      [
        '/v1/conversations',
        'Bearer arb_0000000000000000_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx',
      ],
      ['/v1/tenants', `Bearer ${key}`],
    ]) {
      const r = await rawRequest(
        h.baseUrl,
        `POST ${url} HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth}\r\n` +
          `Content-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{`,
        { waitMs: 5000 },
      );
      expect({ url, status: r.status, closed: r.closedAfterMs !== null }).toEqual({
        url,
        status: 401,
        closed: true,
      });
    }
  });

  it('a body sent at one byte a second is cut off at the request timeout (408 problem)', async () => {
    const r = await rawRequest(
      h.baseUrl,
      `POST /v1/conversations HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{',
      { chunks: Array.from({ length: 60 }, () => ' '), everyMs: 1000, waitMs: 15_000 },
    );
    expect(r.closedAfterMs).not.toBeNull();
    expect(r.closedAfterMs as number).toBeLessThan(10_000);
    expect(r.status).toBe(408);
    expect(JSON.parse(r.body)).toMatchObject({ code: 'request_timeout' });
  }, 20_000);

  it('headers trickled in are cut off at the headers timeout', async () => {
    const r = await rawRequest(h.baseUrl, 'GET /health HTTP/1.1\r\nHost: x\r\n', {
      chunks: Array.from({ length: 30 }, (_, i) => `X-${i}: y\r\n`),
      everyMs: 500,
      waitMs: 15_000,
    });
    expect(r.closedAfterMs).not.toBeNull();
    expect(r.closedAfterMs as number).toBeLessThan(10_000);
  }, 20_000);

  it('connections over ARBOR_MAX_CONNECTIONS_PER_IP are answered 503 and closed; a freed slot works', async () => {
    const held = await Promise.all(Array.from({ length: 8 }, () => openSocket(h.baseUrl)));
    try {
      const over = await rawRequest(h.baseUrl, 'GET /health HTTP/1.1\r\nHost: x\r\n\r\n', {
        waitMs: 5000,
      });
      expect(over.status).toBe(503);
      expect(JSON.parse(over.body)).toMatchObject({ code: 'too_many_connections' });
      expect(over.closedAfterMs).not.toBeNull();
    } finally {
      for (const s of held) s.destroy();
    }
    await new Promise((r) => setTimeout(r, 100));
    const ok = await rawRequest(
      h.baseUrl,
      'GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
    );
    expect(ok.status).toBe(200);
  });
});

describe('answers bounded by bytes as well as items; `next` continues where the bytes ran out', () => {
  const MAX = 4096;
  let h: Harness;
  let c: Client;
  let id: string;
  beforeAll(async () => {
    h = await startHarness({ ARBOR_PAGE_MAX_BYTES: String(MAX) });
    c = clientFor(h, (await h.createTenant('pages')).apiKey);
    for (let i = 0; i < 12; i++)
      await c.start({ id: `conv-${i}`, metadata: { pad: 'p'.repeat(900) } });
    id = 'conv-0';
    let tip: string | null = null;
    for (let i = 0; i < 6; i++)
      tip = (await c.turn(id, tip, [user(`q${i} ${'u'.repeat(900)}`), assistant(`a${i}`)])).tip;
  });
  afterAll(async () => {
    await h.destroy();
  });

  /** Follows `next` to the end: every page within the byte cap, the items in order, none twice. */
  const walk = async (url: string) => {
    const all: unknown[] = [];
    let pages = 0;
    for (let next: string | undefined = undefined; ; pages++) {
      const r = await c.get(next === undefined ? url : `${url}&cursor=${next}`);
      expect(r.status).toBe(200);
      if (r.body.items.length > 1) expect(Buffer.byteLength(r.text)).toBeLessThanOrEqual(MAX);
      all.push(...(r.body.items as unknown[]));
      next = r.body.next as string | undefined;
      if (next === undefined) return { all, pages: pages + 1 };
    }
  };

  it('conversations: limit=1000 answers a few KB per page, and the walk gives every one once', async () => {
    const { all, pages } = await walk('/v1/conversations?limit=1000');
    expect(pages).toBeGreaterThan(2);
    expect((all as { id: string }[]).map((x) => x.id)).toEqual(
      Array.from({ length: 12 }, (_, i) => `conv-${i}`),
    );
  });

  it('messages and events: the same', async () => {
    const messages = await walk(c.conv(id, '/messages?limit=1000'));
    expect(messages.pages).toBeGreaterThan(2);
    expect(messages.all).toHaveLength(12);
    const events = await walk(c.conv(id, '/events?limit=1000'));
    expect(events.pages).toBeGreaterThan(2);
    const revisions = (events.all as { revision: number }[]).map((e) => e.revision);
    expect(revisions).toEqual(revisions.map((_, i) => i));
  });

  it('the jsonl export streams every message', async () => {
    const r = await c.get(c.conv(id, '/export?format=jsonl&scope=tree'));
    expect(r.status).toBe(200);
    expect(r.text.trim().split('\n')).toHaveLength(12);
  });
});

describe('the report: 24 MiB of metadata per conversation', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.destroy();
  });

  it('is refused 413 field_too_large by the default 1 MiB rule, so no page can carry it', async () => {
    const c = clientFor(h, (await h.createTenant('big')).apiKey);
    const r = await c.post('/v1/conversations', {
      metadata: { blob: 'x'.repeat(24 * 1024 * 1024) },
    });
    expect(problemOf(r)).toEqual({
      status: 413,
      type: 'application/problem+json',
      code: 'field_too_large',
    });
    expect((await c.get('/v1/conversations?limit=1000')).body.items).toEqual([]);
  });
});

const run = promisify(execFile);

describe('arbor verify over the deepest and largest inputs the API accepts', () => {
  it('passes', async () => {
    const h = await startHarness();
    try {
      const c = clientFor(h, (await h.createTenant('extremes')).apiKey);
      const deep = JSON.parse(nested(64)) as Record<string, unknown>;
      const large = { blob: 'x'.repeat(1024 * 1024 - 100) };
      for (const metadata of [deep, large]) {
        const conv = await c.post('/v1/conversations', { metadata });
        expect(conv.status).toBe(201);
        const cid = conv.body.id as string;
        for (const [input, error] of [
          [deep, large],
          [large, deep],
        ]) {
          expect((await c.post(c.conv(cid, '/failures'), { input, error })).status).toBe(201);
        }
        const t = await c.post(c.conv(cid, '/turns'), {
          messages: [
            user('q'),
            msg('assistant', [{ type: 'tool_use', id: 't1', name: 'run', input: metadata }]),
            msg('user', [toolResult('t1')]),
            assistant('a'),
          ],
        });
        expect(t.status).toBe(201);
        expect((await c.post(c.conv(cid, '/forks'), { metadata })).status).toBe(201);
      }
      await h.stop();
      const r = await run(
        process.execPath,
        ['-r', '@swc-node/register', path.resolve(__dirname, '../apps/cli/src/main.ts'), 'verify'],
        {
          cwd: path.resolve(__dirname, '..'),
          env: { ...process.env, ARBOR_DATA_DIR: h.dataDir, LOG_LEVEL: 'silent' },
          maxBuffer: 16 * 1024 * 1024,
        },
      );
      expect(r.stdout).toMatch(/^OK: \d+ events in \d+ streams verified/);
    } finally {
      await h.destroy();
    }
  }, 120_000);
});

describe('tree and replay answers bounded by bytes (ARBOR_PAGE_MAX_BYTES, ARBOR_ANSWER_MAX_BYTES)', () => {
  const PAGE = 4096;
  const ANSWER = 16384;
  let h: Harness;
  let c: Client;
  beforeAll(async () => {
    h = await startHarness({
      ARBOR_PAGE_MAX_BYTES: String(PAGE),
      ARBOR_ANSWER_MAX_BYTES: String(ANSWER),
    });
    c = clientFor(h, (await h.createTenant('answers')).apiKey);
  });
  afterAll(async () => {
    await h.destroy();
  });

  it('replay: limit=1000 over 900-byte messages gives byte-capped branch pages that walk to every message', async () => {
    const id = await c.start();
    let tip: string | null = null;
    for (let i = 0; i < 6; i++)
      tip = (await c.turn(id, tip, [user(`q${i} ${'u'.repeat(900)}`), assistant(`a${i}`)])).tip;
    const revision = (await c.conversation(id)).revision as number;
    const ids: string[] = [];
    let pages = 0;
    for (let next: string | undefined = undefined; ; pages++) {
      const q: string = next === undefined ? '' : `&cursor=${encodeURIComponent(next)}`;
      const r = await c.get(c.conv(id, `/replay?revision=${revision}&limit=1000${q}`));
      expect(r.status).toBe(200);
      const items = r.body.branch.items as { id: string }[];
      if (items.length > 1)
        expect(Buffer.byteLength(JSON.stringify(items))).toBeLessThanOrEqual(PAGE);
      ids.push(...items.map((m) => m.id));
      next = r.body.branch.next as string | undefined;
      if (next === undefined) break;
    }
    expect(pages).toBeGreaterThan(1);
    expect(ids).toEqual(await c.branchIds(id));
  });

  it('tree and replay of a conversation whose tree passes the cap: 422 answer_too_large, not a huge 200', async () => {
    const id = await c.start();
    let tip: string | null = null;
    const small = await c.get(c.conv(id, '/tree'));
    expect(small.status).toBe(200);
    for (let i = 0; i < 60; i++)
      tip = (await c.turn(id, tip, [user(`q${i}`), assistant(`a${i}`)])).tip;
    const r = await c.get(c.conv(id, '/tree'));
    expect(r.status).toBe(422);
    expect(r.headers.get('content-type')).toContain('application/problem+json');
    expect(r.body.code).toBe('answer_too_large');
    expect(r.body.maxBytes).toBe(ANSWER);
    const revision = (await c.conversation(id)).revision as number;
    const replay = await c.get(c.conv(id, `/replay?revision=${revision}&limit=1`));
    expect(replay.status).toBe(422);
    expect(replay.body.code).toBe('answer_too_large');
    // The same data is still readable in pages.
    expect(await c.branchIds(id)).toHaveLength(120);
  });
});
