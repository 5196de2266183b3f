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
import { fakeSummarizerEnv, filesWith } from './support/erasure';
import { ADMIN_KEY, type Harness, startHarness } from './support/harness';
import { httpCall } from './support/http';
import { rawRequest } from './support/raw-http';
import { writableFields } from './support/writable-fields';
import {
  type Carried,
  type Carrier,
  type CarrierIds,
  carriers,
  type Need,
} from './support/field-carriers';
import {
  type FakeProvider,
  startFakeProvider,
} from '../libs/context/src/summary/testing/fake-provider';

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

/* ---- markers and control characters in every writable field ---- */

const CARRIERS = carriers();
/** Kept in clear on purpose (docs/erasure.md): the erasure's own reason. */
const CLEAR_BY_DESIGN = new Set(['eraseConversation body.reason']);
/** Only a known value goes there (a page shape): refused, never stored. */
const KNOWN_VALUES_ONLY = new Set([
  'buildContext body.capabilities.snapshotShape',
  'putContextSettings body.models{}.snapshotShape',
]);
const refused = (c: Carrier) => c.slots.some((f) => f !== null && KNOWN_VALUES_ONLY.has(f));
const SUMMARY_KEY = 'sk-ant-test-fuzz-fields';

/** A harness with a summarizer (tip moves summarize), and what each carrier needs in place. */
const fieldsHarness = () => {
  const env: { h: Harness; fake: FakeProvider } = {} as never;
  beforeAll(async () => {
    env.fake = await startFakeProvider({
      apiKey: SUMMARY_KEY,
      provider: 'anthropic',
      contextWindowTokens: 8192,
    });
    env.h = await startHarness(fakeSummarizerEnv(env.fake.url, SUMMARY_KEY));
  }, 120_000);
  afterAll(async () => {
    await env.h?.destroy();
    await env.fake?.close();
  });
  /** A tenant of its own, a conversation with a turn and checkpoint `cp`, and `needs`. */
  const prepare = async (needs: Need[]): Promise<CarrierIds & { key: string; c: Client }> => {
    const { h } = env;
    const t = await h.createTenant('fields');
    const c = clientFor(h, t.apiKey);
    const conv = await c.start();
    let tip = (await c.turn(conv, null, [user('q'), assistant('a')])).tip;
    await c.post(c.conv(conv, '/checkpoints'), { label: 'cp', messageId: tip });
    let side = '';
    let decision = '';
    if (needs.includes('branch')) {
      side = (await c.turn(conv, tip, [user('s'), assistant('side')])).tip;
      tip = (await c.turn(conv, tip, [user('t'), assistant('tip')])).tip;
    }
    if (needs.includes('decision')) {
      for (let i = 0; i < 4; i++)
        tip = (
          await c.turn(conv, tip, [
            user(`read ${i}`),
            msg('assistant', [toolUse(`toolu_r${i}`, 'read')]),
            msg('user', [toolResult(`toolu_r${i}`, `line ${i} of the file. `.repeat(400))]),
            assistant(`read ${i}`),
          ])
        ).tip;
      const r = await c.post(c.conv(conv, '/context'), {
        provider: 'anthropic',
        model: 'claude-sonnet-4-5',
        budgetTokens: 5000,
        maxTokens: 500,
        mode: 'shake',
      });
      expect([r.status, r.status === 200 ? '' : r.text]).toEqual([200, '']);
      const rungs = r.body.receipt.rungs as { applied: boolean; decisionIds: string[] }[];
      decision = rungs.flatMap((g) => (g.applied ? g.decisionIds : []))[0];
      expect(decision).toBeDefined();
    }
    if (needs.includes('draft'))
      expect(
        (await c.put(c.conv(conv, '/draft'), { parentId: tip, messages: [user('d')] })).status,
      ).toBe(200);
    const fresh = `ens-${randomBytes(4).toString('hex')}`;
    return { tenantId: t.id, key: t.apiKey, c, conv, tip, fresh, side, decision };
  };
  const send = (ids: { key: string }, req: Carried) =>
    env.h.call(req.method, req.url, {
      key: req.as === 'admin' ? ADMIN_KEY : ids.key,
      body: req.body,
      check: false,
    });
  return { env, prepare, send };
};

describe('fuzzing erasure: any text in any writable field, then erased, is in no file and no answer', () => {
  const { env, prepare, send } = fieldsHarness();

  it('the carriers write every field the contract lists as writable', () => {
    const carried = new Set(CARRIERS.flatMap((c) => c.slots.filter((f) => f !== null)));
    expect([...writableFields()].filter((f) => !carried.has(f))).toEqual([]);
  });

  it('never leaves the text behind, whatever it is', async () => {
    const around = fc.tuple(
      fc.string({ unit: 'grapheme', maxLength: 40 }),
      fc.string({ unit: 'binary', maxLength: 20 }),
    );
    // Every carrier (so every field) in every run of the suite; what surrounds each marker is
    // fast-check's.
    for (const carrier of CARRIERS.filter(
      (c) => !c.slots.every((f) => f === null || CLEAR_BY_DESIGN.has(f)),
    )) {
      await fc.assert(
        fc.asyncProperty(
          fc.array(around, { minLength: carrier.slots.length, maxLength: carrier.slots.length }),
          async (texts) => {
            const { h } = env;
            const token = `mk${randomBytes(6).toString('hex')}`;
            const ids = await prepare(carrier.needs);
            const req = carrier.build(ids, (i) =>
              carrier.slots[i] === null ? `plain${i}` : `${texts[i][0]}${token}${texts[i][1]}`,
            );
            const r = await send(ids, req);
            const what = carrier.operation;
            if (refused(carrier)) expect([what, r.status]).toEqual([what, 400]);
            else
              expect([what, r.status, r.status < 300 ? '' : r.text]).toEqual([what, r.status, '']);
            // Each conversation the request may have written to, then the tenants.
            const made = r.body?.id as string | undefined;
            await h.call('DELETE', `${ids.c.conv(ids.conv)}?forks=erase`, {
              key: ids.key,
              check: false,
            });
            if (carrier.operation === 'startConversation' && made !== undefined)
              await h.call('DELETE', ids.c.conv(made), { key: ids.key });
            if (carrier.operation === 'ensureConversation')
              await h.call('DELETE', ids.c.conv(ids.fresh), { key: ids.key });
            for (const route of ['/events', '/replay?revision=4']) {
              const read = await ids.c.get(ids.c.conv(ids.conv, route));
              expect([what, route, read.text.includes(token)]).toEqual([what, route, false]);
            }
            const tenants = [ids.tenantId, ...(what === 'createTenant' && made ? [made] : [])];
            for (const t of tenants)
              expect((await h.call('DELETE', `/v1/tenants/${t}`, { key: ADMIN_KEY })).status).toBe(
                200,
              );
            expect([what, filesWith(h.dataDir, token)]).toEqual([what, []]);
          },
        ),
        { numRuns: 1 },
      );
    }
  }, 240_000);
});

/** Terminal controls: C0 (ESC, BEL, NUL…), DEL, C1, and the sequences they start. */
const controlText = (): fc.Arbitrary<string> =>
  fc
    .array(
      fc.oneof(
        fc.constantFrom(
          '\u001b[2J',
          '\u001b[H',
          '\u001b]0;owned\u0007',
          '\u001b]8;;https://example.com\u001b\\link\u001b]8;;\u001b\\',
          '\u001bP1$r\u001b\\',
          '\u009b31m',
          '\u009d0;t\u009c',
          '\r',
          '\b\b',
        ),
        fc.integer({ min: 0, max: 0x1f }).map((c) => String.fromCharCode(c)),
        fc.integer({ min: 0x7f, max: 0x9f }).map((c) => String.fromCharCode(c)),
        fc.string({ maxLength: 8 }),
      ),
      { minLength: 1, maxLength: 6 },
    )
    .map((parts) => parts.join(''));

/** Every string anywhere in a JSON value. */
const stringsOf = (v: unknown, out: string[] = []): string[] => {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) stringsOf(x, out);
  else if (typeof v === 'object' && v !== null) for (const x of Object.values(v)) stringsOf(x, out);
  return out;
};

/** Read, never answered back: the provider's raw error is taken for the numbers in it. */
const NOT_ANSWERED = new Set(['buildContext body.overflow.error']);
// Trimmed by the server before it is stored (a summary instruction's surrounding whitespace is noise).
const TRIMMED = new Set(['moveTip body.summarize.instruction']);

describe('fuzzing control characters: in every writable field, stored and answered as JSON data', () => {
  const { env, prepare, send } = fieldsHarness();

  it('never a 5xx; what is taken is answered escaped, byte for byte what was sent', async () => {
    for (const carrier of CARRIERS) {
      await fc.assert(
        fc.asyncProperty(
          fc.array(controlText(), {
            minLength: carrier.slots.length,
            maxLength: carrier.slots.length,
          }),
          async (texts) => {
            const { h } = env;
            const ids = await prepare(carrier.needs);
            // A tag per value, so finding it in an answer means finding that value.
            const value = (i: number) => `${texts[i]}tag${i}x${texts[i]}`;
            const req = carrier.build(ids, (i) =>
              carrier.slots[i] === null ? `plain${i}` : value(i),
            );
            const before = (await h.call('GET', '/v1/admin/log', { key: ADMIN_KEY })).body.position;
            const r = await send(ids, req);
            const what = carrier.operation;
            expect([what, r.status < 500]).toEqual([what, true]);
            if (r.status >= 400) {
              expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
              expect(isProblemCode(String(r.body.code))).toBe(true);
              expect(
                (await h.call('GET', '/v1/admin/log', { key: ADMIN_KEY })).body.position,
              ).toEqual(before);
              expect([what, refused(carrier)]).toEqual([what, true]);
              return;
            }
            if (what === 'eraseConversation') return;
            const made = r.body?.id as string | undefined;
            const reads = [
              r,
              await ids.c.get(ids.c.conv(ids.conv, '/events')),
              // What the request made: a conversation (started, ensured or forked), a tenant.
              await ids.c.get(ids.c.conv(typeof made === 'string' ? made : ids.fresh, '/events')),
              await h.call('GET', '/v1/tenants', { key: ADMIN_KEY }),
              await h.call('GET', `/v1/tenants/${ids.tenantId}/keys`, { key: ADMIN_KEY }),
            ].filter((a) => a.status === 200 || a.status === 201);
            // JSON escapes every C0 control: none reaches the answer's bytes raw.
            for (const a of reads)
              expect([what, [...a.text].some((ch) => ch.charCodeAt(0) < 0x20)]).toEqual([
                what,
                false,
              ]);
            const answered = new Set(reads.flatMap((a) => stringsOf(a.body)));
            const lost = carrier.slots
              .map((f, i) => [f, i] as const)
              .filter(
                ([f]) => f !== null && !NOT_ANSWERED.has(f) && !f.endsWith('source<base64>.data'),
              )
              .filter(([f, i]) => {
                const sent = TRIMMED.has(f as string) ? value(i).trim() : value(i);
                return ![...answered].some((t) => t.includes(sent));
              })
              .map(([f]) => f);
            expect(lost).toEqual([]);
          },
        ),
        { numRuns: 3 },
      );
    }
  }, 240_000);
});
