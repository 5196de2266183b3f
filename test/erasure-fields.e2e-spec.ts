/**
 * Erased means erased, field by field: a marker goes into every free-text field a client can
 * write (the list is derived from the OpenAPI document, so a new field is in it without anyone
 * listing it), through every route that writes one, in every event type that records one; then
 * the conversations (one with `?forks=erase`) and the tenant are erased, and no file of the data
 * dir (log, WAL, snapshots, read models, keys, idempotency memo) nor any answer of a tenant or
 * admin route holds the marker, raw or base64 at any alignment, while running and after a restart.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { EVENT_STORE } from '@arbor/application';
import { type EventStore } from '@arbor/event-store';
import { buildOpenApiDocument } from '@arbor/contract';
import {
  type FakeProvider,
  type RecordedRequest,
  startFakeProvider,
} from '../libs/context/src/summary/testing/fake-provider';
import { fakeSummarizerEnv, filesWith, needles } from './support/erasure';
import { everyBlockTurn, everyToolShape } from './support/field-carriers';
import { ADMIN_KEY, type Harness, type HttpResult, startHarness } from './support/harness';
import { markedFields, writableFields } from './support/writable-fields';

const KEY = 'sk-ant-test-erasure-fields';
const ROOT = path.resolve(__dirname, '..');

/**
 * Free-text fields kept in clear on purpose, each in docs/erasure.md: the erasure's own reason
 * (recorded once the key is gone, to say why).
 */
const CLEAR_BY_DESIGN = new Set(['eraseConversation body.reason']);

describe('every client-writable field is erased (markers in every field of every event type)', () => {
  let h: Harness;
  let fake: FakeProvider;
  /** Every marker starts with it, so one search finds any of them. */
  const P = `mk${randomBytes(6).toString('hex')}`;
  let n = 0;
  const M = (): string => `${P}x${(n++).toString(36)}`;
  const marked = new Set<string>();

  beforeAll(async () => {
    fake = await startFakeProvider({
      apiKey: KEY,
      provider: 'anthropic',
      contextWindowTokens: 8192,
      // The summarizer quotes what it read, as a real one would.
      summarize: (i: number, request: RecordedRequest) =>
        `Summary ${i}: ${new RegExp(`${P}x[0-9a-z]+`).exec(request.user)?.[0] ?? 'nothing'}.`,
    });
    h = await startHarness(fakeSummarizerEnv(fake.url, KEY));
  }, 300_000);
  afterAll(async () => {
    await h?.destroy();
    await fake?.close();
  });

  /** A call that records which free fields of its body carried a marker. */
  const send = async (
    method: string,
    url: string,
    key: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<HttpResult> => {
    for (const f of markedFields(method, url, body, P)) marked.add(f);
    return h.call(method, url, { key, body, headers }).catch((e: unknown) => {
      throw new Error(`${method} ${url}: ${String(e)}`);
    });
  };
  const ok = (r: HttpResult, what: string): HttpResult => {
    if (r.status >= 300) throw new Error(`${what}: ${r.status} ${r.text.slice(0, 400)}`);
    return r;
  };

  const markedTurn = (tool: string) => everyBlockTurn(M, tool);
  const plain = (q: string) => [
    { role: 'user', content: [{ type: 'text', text: q }] },
    { role: 'assistant', content: [{ type: 'text', text: `re ${q}` }] },
  ];
  const prose = (i: number) =>
    `Part ${i} of the review, about ${M()}: the log, the projections and the ladder. `.repeat(40);
  const tools = () => everyToolShape(M);

  it('writes a marker into each derived field, erases, and finds it nowhere', async () => {
    // The tenant and its keys.
    const tenant = ok(await send('POST', '/v1/tenants', ADMIN_KEY, { name: M() }), 'tenant');
    const tenantId = tenant.body.id as string;
    const key = tenant.body.apiKey as string;
    ok(await send('POST', `/v1/tenants/${tenantId}/keys`, ADMIN_KEY, { label: M() }), 'key');
    const conv = (id: string, rest = '') => `/v1/conversations/${id}${rest}`;
    // Refused where only a known value goes (a page shape): nothing is stored.
    const shape = await send('PUT', '/v1/settings/context', key, {
      models: { claude: { snapshotShape: M() } },
    });
    expect(shape.status).toBe(400);

    // C: every kind of event with content.
    const c = ok(
      await send(
        'POST',
        '/v1/conversations',
        key,
        { title: M(), metadata: { n: M() } },
        {
          'idempotency-key': M(),
        },
      ),
      'start',
    ).body.id as string;
    const t1 = ok(
      await send('POST', conv(c, '/turns'), key, { messages: markedTurn('toolu') }),
      'turn',
    ).body.tip as string;
    const t2 = ok(
      await send('POST', conv(c, '/turns'), key, { parentId: t1, messages: plain(M()) }),
      't2',
    ).body.tip as string;
    ok(await send('POST', conv(c, '/turns'), key, { parentId: t1, messages: plain(M()) }), 't3');
    // Moving back to t2 leaves the t3 branch: summarized, with an instruction.
    ok(
      await send('PUT', conv(c, '/tip'), key, { messageId: t2, summarize: { instruction: M() } }),
      'summarize',
    );
    ok(await send('POST', conv(c, '/checkpoints'), key, { label: 'cp-1', messageId: t1 }), 'cp');
    ok(await send('POST', conv(c, '/checkpoints/cp-1/rewind'), key, { digest: M() }), 'rewind');
    ok(
      await send('POST', conv(c, '/failures'), key, { input: { q: M() }, error: { e: M() } }),
      'failure',
    );
    ok(await send('POST', conv(c, '/forks'), key, { title: M(), metadata: { n: M() } }), 'fork');
    ok(await send('POST', conv(c, '/resume'), key, { keepMessages: 4 }), 'resume');
    // A draft committed (the rest of the turn carries every block), and one left open.
    const tip = (await h.call('GET', conv(c), { key })).body.tip as string;
    const turn = markedTurn('call');
    ok(
      await send('PUT', conv(c, '/draft'), key, { parentId: tip, messages: markedTurn('tu') }),
      'draft',
    );
    ok(await send('DELETE', conv(c, '/draft'), key), 'discard');
    ok(
      await send('PUT', conv(c, '/draft'), key, { parentId: tip, messages: [turn[0]] }),
      'draft 2',
    );
    const committed = ok(
      await send('POST', conv(c, '/draft/commit'), key, { messages: turn.slice(1) }),
      'commit draft',
    ).body.tip as string;
    ok(
      await send('PUT', conv(c, '/draft'), key, {
        parentId: committed,
        messages: markedTurn('open'),
      }),
      'open draft',
    );

    // E: made by PUT.
    const e = `ensured-${randomBytes(4).toString('hex')}`;
    ok(await send('PUT', conv(e), key, { title: M(), metadata: { n: M() } }), 'ensure');

    // X: long enough for the ladder (elision, snapshot, summary), with contexts of every kind.
    const x = ok(await send('POST', '/v1/conversations', key, {}), 'x').body.id as string;
    let at: string | null = null;
    for (let i = 0; i < 30; i++) {
      const messages =
        i % 3 === 0
          ? [
              { role: 'user', content: [{ type: 'text', text: `q ${i}` }] },
              {
                role: 'assistant',
                content: [{ type: 'tool_use', id: `toolu_x${i}`, name: 'read', input: {} }],
              },
              {
                role: 'user',
                content: [{ type: 'tool_result', tool_use_id: `toolu_x${i}`, content: prose(i) }],
              },
              { role: 'assistant', content: [{ type: 'text', text: `ok ${i}` }] },
            ]
          : [
              { role: 'user', content: [{ type: 'text', text: `q ${i}` }] },
              { role: 'assistant', content: [{ type: 'text', text: prose(i) }] },
            ];
      at = ok(await send('POST', conv(x, '/turns'), key, { parentId: at, messages }), `x${i}`).body
        .tip as string;
    }
    const context = (body: Record<string, unknown>) =>
      send('POST', conv(x, '/context'), key, {
        provider: 'anthropic',
        model: 'claude-sonnet-4-5',
        budgetTokens: 200_000,
        ...body,
      });
    const decisions: string[] = [];
    for (const mode of ['shake', 'snapshot', 'compact']) {
      const r = ok(
        await context({ mode, system: M(), tools: tools(), append: markedTurn('ap').slice(0, 3) }),
        mode,
      );
      for (const rung of r.body.receipt.rungs as { applied: boolean; decisionIds: string[] }[])
        if (rung.applied) decisions.push(...rung.decisionIds);
    }
    ok(
      await context({
        overflow: {
          error:
            'Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":' +
            `"prompt is too long: 250000 tokens > 200000 maximum"},"request_id":"${M()}"}`,
        },
      }),
      'overflow',
    );
    expect((await context({ capabilities: { snapshotShape: M() } })).status).toBe(400);
    expect(decisions.length).toBeGreaterThan(0);
    ok(
      await send('POST', conv(x, `/compactions/${decisions[0]}/revoke`), key, { reason: M() }),
      'revoke',
    );

    // Every free field the contract takes was written with a marker (or is in clear by design).
    const missing = [...writableFields()].filter((f) => !marked.has(f) && !CLEAR_BY_DESIGN.has(f));
    expect(missing).toEqual([]);
    // A guard: the search finds the markers where they are (the read models), so "none" means it.
    expect(filesWith(h.dataDir, P).length).toBeGreaterThan(0);

    // Erase: C with its fork, E, X, then the tenant.
    ok(
      await h.call('DELETE', `${conv(c)}?forks=erase`, { key, body: { reason: 'test' } }),
      'erase c',
    );
    for (const id of [e, x]) ok(await h.call('DELETE', conv(id), { key }), `erase ${id}`);
    /** Answers holding a marker; before the tenant's erasure its own name and labels may. */
    const answers = async (tenantErased: boolean): Promise<string[]> => {
      const found: string[] = [];
      for (const [url, who] of getRoutes(tenantId, [c, e, x], decisions[0])) {
        if (!tenantErased && (url === '/v1/tenants' || url.endsWith('/keys'))) continue;
        const r = await h.call('GET', url, { key: who === 'admin' ? ADMIN_KEY : key });
        if (needles(P).some((f) => r.text.includes(f.toString()))) found.push(`${url} ${r.status}`);
      }
      return found;
    };
    expect(await answers(false)).toEqual([]);
    ok(await h.call('DELETE', `/v1/tenants/${tenantId}`, { key: ADMIN_KEY }), 'erase tenant');
    expect(await answers(true)).toEqual([]);
    const leaks = () => {
      const files = filesWith(h.dataDir, P);
      // Name the fields: which markers each file still holds.
      return files.map((f) => {
        const bytes = fs.readFileSync(path.join(h.dataDir, f));
        const which = Array.from({ length: n }, (_, i) => `${P}x${i.toString(36)}`).filter((m) =>
          needles(m).some((form) => bytes.includes(form)),
        );
        return `${f}: ${which.join(' ')}`;
      });
    };
    expect(leaks()).toEqual([]);
    // Read through the keys as the app reads: nothing of the tenant's stream opens any more.
    const store = h.app.get<EventStore>(EVENT_STORE);
    const profile = await store.readStream(`tenant-${tenantId}.profile`);
    expect(profile.map((ev) => ev.type)).toContain('TenantErased');
    expect(JSON.stringify(profile.map((ev) => ev.data))).not.toContain(P);
    await h.restart();
    expect(leaks()).toEqual([]);
    expect(await answers(true)).toEqual([]);
  }, 600_000);

  it('names kept in clear (model, tool call ids) take a name, never free text', async () => {
    const t = ok(await h.call('POST', '/v1/tenants', { key: ADMIN_KEY, body: {} }), 'tenant');
    const key = t.body.apiKey as string;
    const id = ok(await h.call('POST', '/v1/conversations', { key, body: {} }), 'start').body
      .id as string;
    const free = 'Jane Doe, diagnosis: ' + 'x'.repeat(300);
    const call = (callId: string, resultId: string, model = 'claude-sonnet-4-5') => [
      { role: 'user', content: [{ type: 'text', text: 'q' }] },
      {
        role: 'assistant',
        model,
        content: [{ type: 'tool_use', id: callId, name: 'run', input: {} }],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: resultId, content: 'ok' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'a' }] },
    ];
    for (const [messages, path] of [
      [call(free, free), 'body.messages[1].content[0].id'],
      [call('toolu_1', 'a b'), 'body.messages[2].content[0].tool_use_id'],
      [call('toolu_1', 'toolu_1', free), 'body.messages[1].model'],
      [call('toolu_1', 'toolu_1', 'x'.repeat(201)), 'body.messages[1].model'],
    ] as const) {
      const r = await h.call('POST', `/v1/conversations/${id}/turns`, { key, body: { messages } });
      expect([r.status, r.body.code]).toEqual([400, 'validation_failed']);
      expect(JSON.stringify(r.body.errors)).toContain(path);
    }
    const context = await h.call('POST', `/v1/conversations/${id}/context`, {
      key,
      body: { provider: 'anthropic', model: free, budgetTokens: 10_000 },
    });
    expect([context.status, context.body.code]).toEqual([400, 'validation_failed']);
    // What providers and harnesses write is taken.
    for (const [callId, model] of [
      ['toolu_01A09q90qw90lq917835lq9', 'claude-sonnet-4-5-20250929'],
      ['call_abc123|fc_68b0f3', 'gpt-5.1-codex'],
      ['functions.Bash:0', 'models/gemini-2.5-pro'],
      ['tool-1', '<synthetic>'],
    ]) {
      const r = await h.call('POST', `/v1/conversations/${id}/turns`, {
        key,
        body: { parentId: null, messages: call(callId, callId, model) },
      });
      expect([callId, r.status]).toEqual([callId, 201]);
      await h.call('PUT', `/v1/conversations/${id}/tip`, { key, body: { messageId: null } });
    }
  });

  it('the fields kept in clear are the ones docs/erasure.md lists', () => {
    const page = fs.readFileSync(path.join(ROOT, 'docs/erasure.md'), 'utf8');
    for (const f of CLEAR_BY_DESIGN) {
      expect(page).toContain(`\`${f.split(' ')[1].replace('body.', '')}\``);
    }
  });
});

/** Every GET route of the document, its path filled with these ids (tenant key or admin key). */
const getRoutes = (
  tenantId: string,
  conversations: string[],
  decisionId: string,
): [string, 'tenant' | 'admin'][] => {
  const doc = buildOpenApiDocument() as unknown as {
    paths: Record<string, Record<string, { security?: { [k: string]: unknown }[] }>>;
  };
  const out: [string, 'tenant' | 'admin'][] = [];
  for (const [template, ops] of Object.entries(doc.paths)) {
    if (ops.get === undefined || template.endsWith('/stream')) continue;
    const admin = template.startsWith('/v1/tenants') || template.startsWith('/v1/admin');
    for (const id of template.includes('{id}') ? conversations : [conversations[0]]) {
      const url = template
        .replace('{tenantId}', tenantId)
        .replace('{id}', id)
        .replace('{messageId}', 'm-none')
        .replace('{label}', 'cp-1')
        .replace('{contextId}', 'ctx-none')
        .replace('{decisionId}', decisionId);
      const query = template.endsWith('/replay') ? '?revision=5' : '';
      out.push([url + query, admin ? 'admin' : 'tenant']);
    }
  }
  return out;
};
