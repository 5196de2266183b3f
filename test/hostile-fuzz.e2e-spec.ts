import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { isProblemCode } from '../apps/api/src/problem/problem';
import {
  assistant,
  clientFor,
  type Client,
  conversationRoutes,
  msg,
  text,
  toolResult,
  toolUse,
  user,
} from './support/api';
import { filesWith } from './support/erasure';
import { ADMIN_KEY, type Harness, startHarness } from './support/harness';
import { httpCall } from './support/http';
import { rawRequest } from './support/raw-http';
import { markedFields, writableFields } from './support/writable-fields';

type Body = Record<string, unknown>;
type Mutation = (body: Body) => unknown;

const FIELDS = ['turnId', 'parentId', 'expectedTip', 'messages'];

/** Mutations of a valid turn body: each returns a new value, never edits its input. */
const mutation = (): fc.Arbitrary<Mutation> =>
  fc.oneof(
    fc.constantFrom(...FIELDS).map((f) => (b: Body) => {
      const { [f]: _drop, ...rest } = b;
      return rest;
    }),
    fc
      .tuple(fc.constantFrom(...FIELDS), fc.anything())
      .map(([f, v]) => (b: Body) => ({ ...b, [f]: v })),
    fc.tuple(fc.string(), fc.anything()).map(([f, v]) => (b: Body) => ({ ...b, [f]: v })),
    fc.tuple(fc.nat(), fc.anything()).map(([i, v]) => (b: Body) => {
      const ms = [...(b.messages as unknown[])];
      ms[i % ms.length] = v;
      return { ...b, messages: ms };
    }),
    fc.tuple(fc.nat(), fc.string(), fc.anything()).map(([i, key, v]) => (b: Body) => {
      const ms = (b.messages as Body[]).map((m) => ({ ...m }));
      ms[i % ms.length][key || 'role'] = v;
      return { ...b, messages: ms };
    }),
    fc
      .tuple(fc.nat(), fc.string(), fc.dictionary(fc.string(), fc.anything()))
      .map(([i, type, extra]) => (b: Body) => {
        const ms = (b.messages as Body[]).map((m) => ({ ...m }));
        const m = ms[i % ms.length];
        const content = Array.isArray(m.content) ? (m.content as unknown[]) : [];
        m.content = [...content, { ...extra, type }];
        return { ...b, messages: ms };
      }),
    fc.nat().map((seed) => (b: Body) => {
      const ms = [...(b.messages as unknown[])];
      for (let i = ms.length - 1; i > 0; i--) {
        const j = (seed + i * 7) % (i + 1);
        [ms[i], ms[j]] = [ms[j], ms[i]];
      }
      return { ...b, messages: ms };
    }),
    fc.anything().map((v) => () => v),
  );

describe('fuzzing POST /turns: valid and read back, or a catalogued 4xx that appends nothing', () => {
  let h: Harness;
  let c: Client;
  let id: string;
  beforeAll(async () => {
    h = await startHarness();
    c = clientFor(h, (await h.createTenant('fuzz')).apiKey);
    id = await c.start();
  });
  afterAll(async () => {
    await h.destroy();
  });

  const position = async () =>
    (await h.call('GET', '/v1/admin/log', { key: ADMIN_KEY })).body.position as unknown;

  it('never answers 5xx', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(mutation(), { minLength: 1, maxLength: 3 }), async (muts) => {
        n++;
        const tip = (await c.conversation(id)).tip as string | null;
        const base: Body = {
          parentId: tip,
          messages: [
            user(`q${n}`),
            msg('assistant', [text('call'), toolUse(`t${n}`)]),
            msg('user', [toolResult(`t${n}`)]),
            assistant(`a${n}`),
          ],
        };
        let body: unknown = base;
        for (const m of muts) {
          if (typeof body !== 'object' || body === null || Array.isArray(body)) break;
          if (!Array.isArray((body as Body).messages) || (body as Body).messages === undefined)
            break;
          if (((body as Body).messages as unknown[]).length === 0) break;
          body = m(body as Body);
        }
        const before = await position();
        const r = await c.post(c.conv(id, '/turns'), body);
        expect(r.status).toBeLessThan(500);
        if (r.status === 201 || r.status === 200) {
          for (const mid of r.body.messageIds as string[]) {
            const stored = await c.get(c.conv(id, `/messages/${mid}`));
            expect(stored.status).toBe(200);
            expect(Array.isArray(stored.body.content)).toBe(true);
          }
          return;
        }
        expect(r.status).toBeGreaterThanOrEqual(400);
        expect(r.headers.get('content-type')).toContain('application/problem+json');
        expect(isProblemCode(String(r.body.code))).toBe(true);
        expect(await position()).toEqual(before);
      }),
      { numRuns: 150 },
    );
  }, 60_000);
});

/* ---- every route, the attacks of the hardening issue ---- */

/** A JSON text spliced in as is (deep nesting, odd number literals, proto keys). */
class Raw {
  constructor(readonly text: string) {}
}
/** Bytes that are not UTF-8, spliced into the body. */
const BAD_UTF8 = Buffer.from([0xc3, 0x28, 0xff, 0xfe]);
class BadUtf8 {}

const attackValue = (): fc.Arbitrary<unknown> =>
  fc.oneof(
    fc.constantFrom(100_000, 1_200_000).map((n) => 'x'.repeat(n)),
    fc
      .constantFrom(65, 200, 4500, 100_000)
      .map((d) => new Raw('{"a":'.repeat(d) + '1' + '}'.repeat(d))),
    fc.constantFrom(65, 4500).map((d) => new Raw('['.repeat(d) + ']'.repeat(d))),
    fc.constant(new Raw('{"__proto__":{"polluted":true},"constructor":{"prototype":{"p":1}}}')),
    fc
      .constantFrom('1e308', '-0', '1e-400', '9007199254740993', '1' + '0'.repeat(400), '0.1e1')
      .map((n) => new Raw(n)),
    fc.constant(new BadUtf8()),
    fc.anything({ maxDepth: 3 }),
  );

/** The body as bytes: Raw and BadUtf8 markers replaced after serializing the rest. */
const encode = (value: unknown): Buffer => {
  const parts: (Raw | BadUtf8)[] = [];
  const text = JSON.stringify(value, (_k, v: unknown) => {
    if (v instanceof Raw || v instanceof BadUtf8) {
      parts.push(v);
      return `\u0000${parts.length - 1}\u0000`;
    }
    return v;
  });
  if (text === undefined) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  let last = 0;
  for (const m of text.matchAll(/"\\u0000(\d+)\\u0000"/g)) {
    chunks.push(Buffer.from(text.slice(last, m.index)));
    const p = parts[Number(m[1])];
    chunks.push(
      p instanceof Raw
        ? Buffer.from(p.text)
        : Buffer.concat([Buffer.from('"'), BAD_UTF8, Buffer.from('"')]),
    );
    last = (m.index ?? 0) + m[0].length;
  }
  chunks.push(Buffer.from(text.slice(last)));
  return Buffer.concat(chunks);
};

const QUERY_KEYS = [
  'limit',
  'cursor',
  'fromRevision',
  'revision',
  'format',
  'scope',
  'provider',
  'x',
];
const queryValue = fc.oneof(
  fc.constantFrom(
    '0x10',
    '1e3',
    ' 5',
    '-1',
    '99999999999999999999',
    '',
    '%00',
    '..%2F',
    'é',
    '1.5',
  ),
  fc.string({ maxLength: 300 }),
);

describe('fuzzing every route with the attacks of the hardening issue', () => {
  let h: Harness;
  let c: Client;
  let other: Client;
  let id: string;
  let messageId: string;
  beforeAll(async () => {
    h = await startHarness();
    c = clientFor(h, (await h.createTenant('attacker')).apiKey);
    other = clientFor(h, (await h.createTenant('bystander')).apiKey);
    id = await c.start();
    const t = await c.turn(id, null, [user('q'), assistant('a')]);
    messageId = t.tip;
    await c.post(c.conv(id, '/checkpoints'), { label: 'cp', messageId });
  });
  afterAll(async () => {
    await h.destroy();
  });

  const head = async () =>
    (await h.call('GET', '/v1/admin/log', { key: ADMIN_KEY })).body.position as unknown;

  const routes = () => [
    ...conversationRoutes(id, messageId),
    { name: 'start', method: 'POST', url: '/v1/conversations', body: { title: 't', metadata: {} } },
    { name: 'list', method: 'GET', url: '/v1/conversations?limit=2' },
    {
      name: 'context',
      method: 'POST',
      url: c.conv(id, '/context'),
      body: {
        provider: 'anthropic',
        model: 'claude-sonnet-4-5',
        budgetTokens: 10_000,
        tools: [{ name: 'run', input_schema: { type: 'object' } }],
      },
    },
    { name: 'report', method: 'GET', url: c.conv(id, '/context/report?provider=anthropic') },
    { name: 'settings', method: 'PUT', url: '/v1/settings/context', body: { models: {} } },
  ];

  const send = async (method: string, url: string, body: Buffer | undefined) => {
    const res = await httpCall(h.baseUrl, method, url, { key: c.key, raw: body, check: false });
    const json = res.body as { code?: unknown } | undefined;
    return { status: res.status, type: res.headers.get('content-type') ?? '', json };
  };

  it('never answers 5xx; every refusal is a catalogued problem and appends nothing; a bystander is measured', async () => {
    // The bystander's reads and writes, timed before and during the attack (printed, not asserted).
    const bystanderConv = await other.start();
    const timeOne = async () => {
      const t0 = performance.now();
      const r = await other.get(other.conv(bystanderConv));
      expect(r.status).toBe(200);
      return performance.now() - t0;
    };
    const quantiles = (xs: number[]) => {
      const s = [...xs].sort((a, b) => a - b);
      const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))].toFixed(1);
      return `n=${s.length} p50=${q(0.5)} ms p99=${q(0.99)} ms max=${s[s.length - 1].toFixed(1)} ms`;
    };
    const baseline: number[] = [];
    for (let i = 0; i < 100; i++) baseline.push(await timeOne());
    const during: number[] = [];
    let attacking = true;
    const bystander = (async () => {
      while (attacking) {
        during.push(await timeOne());
        await new Promise((r) => setTimeout(r, 5));
      }
    })();

    const mutation = fc.oneof(
      fc.record({
        kind: fc.constant('field' as const),
        key: fc.option(
          fc.constantFrom(
            'metadata',
            'input',
            'error',
            'title',
            'messages',
            'tools',
            'label',
            'messageId',
            'models',
            'keepMessages',
            'digest',
            'extra',
          ),
          { nil: undefined },
        ),
        value: attackValue(),
      }),
      fc.record({ kind: fc.constant('body' as const), value: attackValue() }),
      fc.record({
        kind: fc.constant('query' as const),
        key: fc.constantFrom(...QUERY_KEYS),
        value: queryValue,
      }),
    );
    let runs = 0;
    try {
      await fc.assert(
        fc.asyncProperty(fc.nat(), mutation, async (pick, m) => {
          runs++;
          const all = routes();
          const route = all[pick % all.length];
          let url = route.url;
          let body: unknown = route.body;
          if (m.kind === 'query') {
            url += `${url.includes('?') ? '&' : '?'}${m.key}=${encodeURIComponent(m.value)}`;
          } else if (m.kind === 'body') body = m.value;
          else if (typeof body === 'object' && body !== null)
            body = { ...(body as object), [m.key ?? 'extra']: m.value };
          else body = { [m.key ?? 'extra']: m.value };
          const bytes = route.method === 'GET' && m.kind !== 'body' ? undefined : encode(body);
          const method = route.method === 'GET' && bytes !== undefined ? 'POST' : route.method;
          const before = await head();
          const r = await send(method, url, bytes);
          expect({ route: route.name, status: r.status < 500 }).toEqual({
            route: route.name,
            status: true,
          });
          if (r.status >= 400) {
            expect(r.type).toMatch(/^application\/problem\+json/);
            expect(isProblemCode(String(r.json?.code))).toBe(true);
            expect(await head()).toEqual(before);
          }
          expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        }),
        { numRuns: 400, interruptAfterTimeLimit: 45_000 },
      );
    } finally {
      attacking = false;
      await bystander;
    }
    console.log(
      `fuzz: ${runs} attacks over ${routes().length} routes\n` +
        `bystander GET before: ${quantiles(baseline)}\nbystander GET during: ${quantiles(during)}`,
    );
  }, 120_000);
});

/* ---- two Authorization headers, content codings ---- */

describe('fuzzing the headers: two Authorization headers, content codings', () => {
  let h: Harness;
  let a: Client;
  let b: Client;
  let id: string;
  beforeAll(async () => {
    h = await startHarness();
    a = clientFor(h, (await h.createTenant('headers-a')).apiKey);
    b = clientFor(h, (await h.createTenant('headers-b')).apiKey);
    id = await a.start();
  });
  afterAll(async () => {
    await h.destroy();
  });

  const head = async () =>
    (await h.call('GET', '/v1/admin/log', { key: ADMIN_KEY })).body.position as unknown;

  const ROUTES = () => [
    { method: 'GET', url: '/v1/conversations', body: undefined },
    { method: 'GET', url: a.conv(id, '/events'), body: undefined },
    { method: 'POST', url: '/v1/conversations', body: '{"title":"h"}' },
    { method: 'POST', url: '/v1/tenants', body: '{}' },
  ];
  const credential = () =>
    fc.oneof(
      fc.constantFrom(a.key, b.key, ADMIN_KEY, 'nope').map((k) => `Bearer ${k}`),
      fc.constantFrom(a.key, b.key).map((k) => `bearer   ${k}`),
      // Any printable header value (what the HTTP parser lets through to the app).
      fc.stringMatching(/^[ -~]{0,40}$/),
    );
  const name = fc.constantFrom('Authorization', 'authorization', 'AUTHORIZATION', 'AuThOrIzAtIoN');

  it('two (or more) Authorization headers: always 400 malformed_header, nothing written or read', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.nat(),
        fc.array(fc.tuple(name, credential()), { minLength: 2, maxLength: 4 }),
        async (pick, headers) => {
          const all = ROUTES();
          const route = all[pick % all.length];
          const before = await head();
          const lines = headers.map(([n, v]) => `${n}: ${v}\r\n`).join('');
          const body = route.body ?? '';
          const r = await rawRequest(
            h.baseUrl,
            `${route.method} ${route.url} HTTP/1.1\r\nHost: x\r\n${lines}` +
              (route.body !== undefined
                ? `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n`
                : '') +
              `Connection: close\r\n\r\n${body}`,
          );
          expect(r.status).toBe(400);
          expect(JSON.parse(r.body).code).toBe('malformed_header');
          expect(r.body).not.toContain('"items"');
          expect(await head()).toEqual(before);
        },
      ),
      { numRuns: 60, interruptAfterTimeLimit: 30_000 },
    );
  }, 60_000);

  it('a content coding: 415 unless every coding is identity, nothing written on a refusal', async () => {
    const coding = fc.oneof(
      fc.constantFrom('gzip', 'x-gzip', 'deflate', 'br', 'zstd', 'compress', 'identity', 'GZIP'),
      fc.stringMatching(/^[a-z][a-z0-9-]{0,12}$/),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(coding, { minLength: 1, maxLength: 3 }),
        fc.boolean(),
        async (codings, compressed) => {
          const plain = JSON.stringify({ title: 'coded' });
          const before = await head();
          const res = await fetch(`${h.baseUrl}/v1/conversations`, {
            method: 'POST',
            headers: {
              authorization: `Bearer ${a.key}`,
              'content-type': 'application/json',
              'content-encoding': codings.join(', '),
            },
            body: compressed ? gzipSync(plain) : plain,
          });
          const answer = (await res.json()) as { code?: string };
          const identity = codings.every((c) => c.toLowerCase() === 'identity');
          if (identity && !compressed) {
            expect(res.status).toBe(201);
            return;
          }
          if (identity) {
            // Gzip bytes under an honest "identity" label are not JSON.
            expect(res.status).toBe(400);
          } else {
            expect([res.status, answer.code]).toEqual([415, 'unsupported_media_type']);
          }
          expect(await head()).toEqual(before);
        },
      ),
      { numRuns: 60, interruptAfterTimeLimit: 30_000 },
    );
  }, 60_000);
});

/* ---- markers in every writable field ---- */

describe('fuzzing erasure: any text in any writable field, then erased, is in no file and no answer', () => {
  let h: Harness;
  let c: Client;
  beforeAll(async () => {
    h = await startHarness();
    c = clientFor(h, (await h.createTenant('markers')).apiKey);
  });
  afterAll(async () => {
    await h.destroy();
  });

  type Carrier = (
    conv: string,
    tip: string,
    v: string,
  ) => { method: string; url: string; body: unknown };
  /** Requests that each put `v` in one free field (checked against the derived list below). */
  const CARRIERS: Record<string, Carrier> = {
    'startConversation body.title': () => ({
      method: 'POST',
      url: '/v1/conversations',
      body: { title: 'x' },
    }),
    'ensureConversation body.metadata': (conv, _t, v) => ({
      method: 'PUT',
      url: `/v1/conversations/${conv}`,
      body: { metadata: { v } },
    }),
    'commitTurn body.messages[].content[]<text>.text': (conv, tip, v) => ({
      method: 'POST',
      url: `/v1/conversations/${conv}/turns`,
      body: { parentId: tip, messages: [user(v), assistant('a')] },
    }),
    'commitTurn body.messages[].content[]<tool_use>.input': (conv, tip, v) => ({
      method: 'POST',
      url: `/v1/conversations/${conv}/turns`,
      body: {
        parentId: tip,
        messages: [
          user('q'),
          msg('assistant', [toolUse('call_1', 'run', { v })]),
          msg('user', [toolResult('call_1', v)]),
          assistant('a'),
        ],
      },
    }),
    'commitTurn body.messages[].clientData': (conv, tip, v) => ({
      method: 'POST',
      url: `/v1/conversations/${conv}/turns`,
      body: { parentId: tip, messages: [{ ...user('q'), clientData: { v } }, assistant('a')] },
    }),
    'rewind body.digest': (conv, _t, v) => ({
      method: 'POST',
      url: `/v1/conversations/${conv}/checkpoints/cp/rewind`,
      body: { digest: v },
    }),
    'recordFailure body.error': (conv, _t, v) => ({
      method: 'POST',
      url: `/v1/conversations/${conv}/failures`,
      body: { input: 'i', error: { v } },
    }),
    'fork body.title': (conv, _t, v) => ({
      method: 'POST',
      url: `/v1/conversations/${conv}/forks`,
      body: { title: v.slice(0, 500) },
    }),
    'saveDraft body.messages[].content[]<thinking>.thinking': (conv, tip, v) => ({
      method: 'PUT',
      url: `/v1/conversations/${conv}/draft`,
      body: {
        parentId: tip,
        messages: [
          user('q'),
          msg('assistant', [{ type: 'thinking', thinking: v, signature: 's' }]),
        ],
      },
    }),
    'buildContext body.system': (conv, _t, v) => ({
      method: 'POST',
      url: `/v1/conversations/${conv}/context`,
      body: { provider: 'anthropic', model: 'claude-sonnet-4-5', budgetTokens: 20_000, system: v },
    }),
  };

  it('every carrier writes where it says, into a field the contract lists as writable', () => {
    const writable = writableFields();
    for (const [field, carry] of Object.entries(CARRIERS)) {
      const { method, url, body } = carry('c1', 'm1', 'mk0123456789ab');
      expect(writable.has(field)).toBe(true);
      if (field === 'startConversation body.title') continue;
      expect([field, markedFields(method, url, body, 'mk0123456789ab').has(field)]).toEqual([
        field,
        true,
      ]);
    }
  });

  it('never leaves the text behind, whatever it is', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...Object.keys(CARRIERS)),
        fc.string({ unit: 'grapheme', maxLength: 60 }),
        fc.string({ unit: 'binary', maxLength: 30 }),
        async (field, before, after) => {
          const token = `mk${randomBytes(6).toString('hex')}`;
          const v = `${before}${token}${after}`;
          const conv = await c.start(
            field === 'startConversation body.title' ? { title: v.slice(-500) } : {},
          );
          const tip = (await c.turn(conv, null, [user('q'), assistant('a')])).tip;
          await c.post(c.conv(conv, '/checkpoints'), { label: 'cp', messageId: tip });
          const { method, url, body } = CARRIERS[field](conv, tip, v);
          const r = await h.call(method, url, { key: c.key, body });
          expect([field, r.status < 300]).toEqual([field, true]);
          const forks = field === 'fork body.title' ? '?forks=erase' : '';
          expect((await h.call('DELETE', c.conv(conv) + forks, { key: c.key })).status).toBe(200);
          expect([field, filesWith(h.dataDir, token)]).toEqual([field, []]);
          for (const route of ['/events', '/replay?revision=4']) {
            const read = await c.get(c.conv(conv, route));
            expect([field, route, read.text.includes(token)]).toEqual([field, route, false]);
          }
        },
      ),
      { numRuns: 25, interruptAfterTimeLimit: 60_000 },
    );
  }, 120_000);
});
