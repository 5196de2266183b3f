/**
 * @arbor/client against the real app over HTTP. Lost answers and 5xx come from a real TCP proxy
 * in front of it that drops or refuses what the test tells it to, so a retry really reaches the
 * server a second time.
 */
import http from 'node:http';
import { type AddressInfo } from 'node:net';
import { type Harness, startHarness } from '../../../test/support/harness';
import { ArborClient, ArborNetworkError, ArborProblemError, isProblem } from '../src';
import { type MessageInput } from '../src';

const user = (text: string): MessageInput => ({ role: 'user', content: [{ type: 'text', text }] });
const assistant = (text: string): MessageInput => ({
  role: 'assistant',
  content: [{ type: 'text', text }],
});

type Fault = 'drop-answer' | '503' | 'refuse';

/** Forwards to the app; the next faults (FIFO) apply to matching requests. */
const startProxy = async (target: () => string) => {
  const faults: { match: RegExp; fault: Fault }[] = [];
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const line = `${req.method} ${req.url}`;
      seen.push(line);
      const i = faults.findIndex((f) => f.match.test(line));
      const fault = i >= 0 ? faults.splice(i, 1)[0].fault : undefined;
      if (fault === 'refuse') return req.socket.destroy();
      if (fault === '503') {
        res.writeHead(503, { 'content-type': 'text/plain', 'retry-after': '0' });
        return res.end('upstream unavailable');
      }
      const headers = { ...req.headers };
      delete headers.host;
      void fetch(target() + req.url, {
        method: req.method,
        headers: headers as Record<string, string>,
        body: chunks.length ? Buffer.concat(chunks) : undefined,
      }).then(async (answer) => {
        const body = Buffer.from(await answer.arrayBuffer());
        // The server did the work; the client never hears of it.
        if (fault === 'drop-answer') return req.socket.destroy();
        res.writeHead(answer.status, Object.fromEntries(answer.headers.entries()));
        res.end(body);
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    fail: (match: RegExp, fault: Fault) => faults.push({ match, fault }),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
};

describe('@arbor/client', () => {
  let h: Harness;
  let proxy: Awaited<ReturnType<typeof startProxy>>;
  let client: ArborClient;

  beforeAll(async () => {
    h = await startHarness();
    proxy = await startProxy(() => h.baseUrl);
    const { apiKey } = await h.createTenant('client');
    client = new ArborClient({ baseUrl: proxy.url, apiKey, retryDelayMs: 5 });
  });
  afterAll(async () => {
    await proxy.close();
    await h.destroy();
  });

  it('commits a turn whose answer was lost exactly once (same turnId, replayed)', async () => {
    const { id } = await client.startConversation();
    proxy.fail(/POST \/v1\/conversations\/[^/]+\/turns/, 'drop-answer');
    proxy.fail(/POST \/v1\/conversations\/[^/]+\/turns/, '503');
    const answer = await client.commitTurn(id, [user('hi'), assistant('hello')]);
    const commits = proxy.seen.filter((l) => l.includes(`${id}/turns`));
    expect(commits).toHaveLength(3);
    const conversation = await client.getConversation(id);
    expect(conversation.counts).toEqual({ messages: 2, turns: 1 });
    expect(conversation.tip).toBe(answer.tip);
  });

  it('retries GETs after a refused connection and gives up with ArborNetworkError', async () => {
    const { id } = await client.startConversation({ title: 't' });
    proxy.fail(new RegExp(`GET /v1/conversations/${id}$`), 'refuse');
    expect((await client.getConversation(id)).title).toBe('t');

    const once = new ArborClient({ baseUrl: proxy.url, retries: 1, retryDelayMs: 1 });
    proxy.fail(/GET \/health/, 'refuse');
    proxy.fail(/GET \/health/, 'refuse');
    await expect(once.call('health', {})).rejects.toBeInstanceOf(ArborNetworkError);
  });

  it('does not resend a POST that is not idempotent', async () => {
    proxy.fail(/POST \/v1\/conversations$/, '503');
    const before = proxy.seen.length;
    await expect(client.startConversation({ title: 'x' })).rejects.toBeInstanceOf(
      ArborProblemError,
    );
    expect(proxy.seen.length - before).toBe(1);
  });

  it('answers problems typed by code, with violations and field errors', async () => {
    const { id } = await client.startConversation();
    const invalid = await client.commitTurn(id, [user('only a question')]).catch((e) => e);
    expect(isProblem(invalid, 'invalid_turn')).toBe(true);
    if (!isProblem(invalid, 'invalid_turn')) throw invalid;
    expect(invalid.status).toBe(422);
    expect(invalid.problem.violations?.map((v) => v.code)).toContain('must_end_with_assistant');

    const bad = await client
      .commitTurn(id, [{ role: 'user', content: [{ type: 'text', text: '' }] }])
      .catch((e) => e);
    if (!isProblem(bad, 'validation_failed')) throw bad;
    expect(bad.problem.errors?.[0].path).toMatch(/^body\.messages\[0\]/);

    const stale = await client
      .commitTurn(id, { expectedTip: 'nope', messages: [user('q'), assistant('a')] })
      .catch((e) => e);
    expect(stale).toBeInstanceOf(ArborProblemError);
    if (!isProblem(stale, 'stale_tip')) throw stale;
    // The code's own fields are typed (not JSON): what the app acts on.
    const tip: string | null = stale.problem.tip;
    const expected: string | null = stale.problem.expectedTip;
    expect([tip, expected]).toEqual([null, 'nope']);

    const missing = await client.getConversation('no-such-conversation').catch((e) => e);
    expect(isProblem(missing, 'conversation_not_found')).toBe(true);
  });

  it('iterates every page of the branch and of the conversations', async () => {
    const { id } = await client.startConversation({ title: 'paged' });
    for (let i = 0; i < 5; i++) await client.commitTurn(id, [user(`q${i}`), assistant(`a${i}`)]);
    const texts: string[] = [];
    for await (const m of client.messages(id, 3)) {
      const first = m.content[0];
      texts.push(first.type === 'text' ? first.text : first.type);
    }
    expect(texts).toEqual(['q0', 'a0', 'q1', 'a1', 'q2', 'a2', 'q3', 'a3', 'q4', 'a4']);
    const pages = proxy.seen.filter((l) => l.startsWith(`GET /v1/conversations/${id}/messages`));
    expect(pages).toHaveLength(4);

    const ids: string[] = [];
    for await (const c of client.conversations(2)) ids.push(c.id);
    expect(ids).toContain(id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('replays a revision with every page of its branch', async () => {
    const { id } = await client.startConversation();
    for (let i = 0; i < 3; i++) await client.commitTurn(id, [user(`q${i}`), assistant(`a${i}`)]);
    const at = (await client.getConversation(id)).revision;
    const before = proxy.seen.length;
    const replay = await client.replay(id, at, 2);
    expect(replay.branch.items.map((m) => m.content[0])).toEqual(
      ['q0', 'a0', 'q1', 'a1', 'q2', 'a2'].map((text) => ({ type: 'text', text })),
    );
    expect(replay.branch).not.toHaveProperty('next');
    expect(proxy.seen.slice(before).filter((l) => l.includes(`${id}/replay`))).toHaveLength(3);
  });

  it('reaches any route by operationId (tree, events, context)', async () => {
    const { id } = await client.startConversation();
    const turn = await client.commitTurn(id, [user('q'), assistant('a')]);
    const tree = await client.call('tree', { path: { id } });
    expect(tree.tip).toBe(turn.tip);
    const types: string[] = [];
    for await (const e of client.events(id, { limit: 1 })) types.push(e.type);
    expect(types[0]).toBe('ConversationStarted');
    expect(types.at(-1)).toBe('TurnCommitted');
    expect(
      proxy.seen.filter((l) => l.startsWith(`GET /v1/conversations/${id}/events`)).length,
    ).toBe(types.length);
    const context = await client.context(id, {
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      budgetTokens: 50_000,
    });
    expect(context.revision).toBeGreaterThan(turn.revision);
    expect(context.body.messages).toHaveLength(2);
  });
});
