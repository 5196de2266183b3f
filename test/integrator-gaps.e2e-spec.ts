/**
 * The small API gaps a model loop meets: the branch tail (`?last=N`), create-or-get by id
 * (`PUT /v1/conversations/{id}`), the tip a context was built on, and a budget that cannot hold
 * the answer's `maxTokens` (400 naming both). Every answer is checked against the OpenAPI
 * document by the harness.
 */
import { type Harness, startHarness } from './support/harness';

const turn = (i: number) => ({
  messages: [
    { role: 'user', content: [{ type: 'text', text: `q${i}` }] },
    { role: 'assistant', content: [{ type: 'text', text: `a${i}` }] },
  ],
});
const texts = (items: { content: { text: string }[] }[]) => items.map((m) => m.content[0].text);

describe('integrator gaps', () => {
  let h: Harness;
  let key: string;
  beforeAll(async () => {
    h = await startHarness();
    key = (await h.createTenant()).apiKey;
  });
  afterAll(() => h.destroy());

  it('GET …/messages?last=N answers the tail, root → tip, in one page', async () => {
    const { body } = await h.call('POST', '/v1/conversations', { key, body: {} });
    for (let i = 0; i < 4; i++)
      expect(
        (await h.call('POST', `/v1/conversations/${body.id}/turns`, { key, body: turn(i) })).status,
      ).toBe(201);
    const tail = await h.call('GET', `/v1/conversations/${body.id}/messages?last=3`, { key });
    expect(tail.status).toBe(200);
    expect(texts(tail.body.items)).toEqual(['a2', 'q3', 'a3']);
    expect(tail.body.next).toBeUndefined();
    const all = await h.call('GET', `/v1/conversations/${body.id}/messages?last=100`, { key });
    expect(all.body.items).toHaveLength(8);
    const both = await h.call('GET', `/v1/conversations/${body.id}/messages?last=3&limit=2`, {
      key,
    });
    expect(both.status).toBe(400);
    expect(both.body.errors[0].path).toBe('query.last');
  });

  it('PUT /v1/conversations/{id} creates (201) or gets (200), never twice', async () => {
    const first = await h.call('PUT', '/v1/conversations/session-42', {
      key,
      body: { title: 'first' },
    });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ id: 'session-42', tip: null });
    await h.call('POST', '/v1/conversations/session-42/turns', { key, body: turn(0) });
    const again = await h.call('PUT', '/v1/conversations/session-42', {
      key,
      body: { title: 'second' },
    });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe('session-42');
    expect(again.body.tip).not.toBeNull();
    const view = await h.call('GET', '/v1/conversations/session-42', { key });
    expect(view.body.title).toBe('first');
    expect(view.body.revision).toBe(again.body.revision);
    const events = await h.call('GET', '/v1/conversations/session-42/events', { key });
    expect(
      events.body.items.filter((e: { type: string }) => e.type === 'ConversationStarted'),
    ).toHaveLength(1);
  });

  it('the context answer carries the tip it was built on', async () => {
    const { body } = await h.call('POST', '/v1/conversations', { key, body: {} });
    const committed = await h.call('POST', `/v1/conversations/${body.id}/turns`, {
      key,
      body: turn(0),
    });
    const context = await h.call('POST', `/v1/conversations/${body.id}/context`, {
      key,
      body: { provider: 'openai-chat', model: 'gpt-4o', budgetTokens: 20_000 },
    });
    expect(context.status).toBe(200);
    expect(context.body.tip).toBe(committed.body.tip);
  });

  it('a budget that cannot hold maxTokens is a 400 naming both', async () => {
    const { body } = await h.call('POST', '/v1/conversations', { key, body: {} });
    await h.call('POST', `/v1/conversations/${body.id}/turns`, { key, body: turn(0) });
    const given = await h.call('POST', `/v1/conversations/${body.id}/context`, {
      key,
      body: {
        provider: 'anthropic',
        model: 'claude-sonnet-4-5',
        budgetTokens: 3000,
        maxTokens: 3000,
      },
    });
    expect(given.status).toBe(400);
    expect(given.body.code).toBe('validation_failed');
    expect(given.body.detail).toMatch(/budgetTokens 3000 .*maxTokens 3000/);
    expect(given.body.errors[0]).toMatchObject({
      path: 'body.maxTokens',
      code: 'budget_below_max_tokens',
    });
    const byDefault = await h.call('POST', `/v1/conversations/${body.id}/context`, {
      key,
      body: { provider: 'anthropic', model: 'claude-sonnet-4-5', budgetTokens: 3000 },
    });
    expect(byDefault.status).toBe(400);
    expect(byDefault.body.detail).toMatch(/budgetTokens 3000 .*maxTokens .*4096/);
    expect(byDefault.body.errors[0].path).toBe('body.budgetTokens');
  });

  it('an empty conversation answers 200: a body without messages, on tip null', async () => {
    const { body } = await h.call('POST', '/v1/conversations', { key, body: {} });
    for (const provider of ['anthropic', 'openai-chat'] as const) {
      const r = await h.call('POST', `/v1/conversations/${body.id}/context`, {
        key,
        body: { provider, model: 'gpt-4o', budgetTokens: 20_000, system: 'be brief' },
      });
      expect(r.status).toBe(200);
      expect(r.body.tip).toBeNull();
      const roles = (r.body.body.messages as { role: string }[]).map((m) => m.role);
      expect(roles).toEqual(provider === 'anthropic' ? [] : ['system']);
      // And it reproduces from the log byte for byte (the replay had no window for tip null).
      const reproduced = await h.call(
        'GET',
        `/v1/conversations/${body.id}/contexts/${r.body.contextId}`,
        { key },
      );
      expect([reproduced.status, reproduced.body.match, reproduced.body.bodyHash]).toEqual([
        200,
        true,
        reproduced.body.recordedHash,
      ]);
    }
  });

  it('append: the next user message goes into the body and the budget, not into history', async () => {
    const { body } = await h.call('POST', '/v1/conversations', { key, body: {} });
    await h.call('POST', `/v1/conversations/${body.id}/turns`, { key, body: turn(0) });
    const base = { provider: 'openai-chat', model: 'gpt-4o', budgetTokens: 20_000 };
    const without = await h.call('POST', `/v1/conversations/${body.id}/context`, {
      key,
      body: base,
    });
    const next = {
      role: 'user',
      content: [{ type: 'text', text: 'the next question '.repeat(50) }],
    };
    const withNext = await h.call('POST', `/v1/conversations/${body.id}/context`, {
      key,
      body: { ...base, append: [next] },
    });
    expect(withNext.status).toBe(200);
    const messages = withNext.body.body.messages as { role: string; content: unknown }[];
    expect(messages).toHaveLength(3);
    expect(JSON.stringify(messages[2].content)).toContain('the next question');
    expect(withNext.body.receipt.estimatedTokens).toBeGreaterThan(
      without.body.receipt.estimatedTokens + 100,
    );
    const stored = await h.call('GET', `/v1/conversations/${body.id}/messages`, { key });
    expect(texts(stored.body.items)).toEqual(['q0', 'a0']);
    expect(withNext.body.tip).toBe(without.body.tip);
    // The receipt keeps the appended message: the context reproduces byte for byte.
    const reproduced = await h.call(
      'GET',
      `/v1/conversations/${body.id}/contexts/${withNext.body.contextId}`,
      { key },
    );
    expect(reproduced.status).toBe(200);
    expect(reproduced.body.match).toBe(true);
    // On an empty conversation the appended message is the whole body.
    const empty = await h.call('POST', '/v1/conversations', { key, body: {} });
    const first = await h.call('POST', `/v1/conversations/${empty.body.id}/context`, {
      key,
      body: { ...base, provider: 'anthropic', append: [next] },
    });
    expect(first.status).toBe(200);
    expect(first.body.body.messages).toHaveLength(1);
  });

  it('append must continue the transcript: a 400 naming body.append paths', async () => {
    const { body } = await h.call('POST', '/v1/conversations', { key, body: {} });
    await h.call('POST', `/v1/conversations/${body.id}/turns`, { key, body: turn(0) });
    const base = { provider: 'anthropic', model: 'claude-sonnet-4-5', budgetTokens: 20_000 };
    const wrongRole = await h.call('POST', `/v1/conversations/${body.id}/context`, {
      key,
      body: { ...base, append: [{ role: 'assistant', content: [{ type: 'text', text: 'x' }] }] },
    });
    expect(wrongRole.status).toBe(400);
    expect(wrongRole.body.errors[0]).toMatchObject({
      path: 'body.append[0].role',
      code: 'role_order',
    });
    const badBlock = await h.call('POST', `/v1/conversations/${body.id}/context`, {
      key,
      body: { ...base, append: [{ role: 'user', content: [{ type: 'nope' }] }] },
    });
    expect(badBlock.status).toBe(400);
    expect(badBlock.body.errors[0].path).toMatch(/^body\.append\[0\]\.content\[0\]/);
  });

  it("tools in each provider's own shape are read into one definition", async () => {
    const { body } = await h.call('POST', '/v1/conversations', { key, body: {} });
    await h.call('POST', `/v1/conversations/${body.id}/turns`, { key, body: turn(0) });
    const parameters = { type: 'object', properties: { city: { type: 'string' } } };
    const shapes = [
      { name: 'weather', description: 'Weather', input_schema: parameters },
      { type: 'function', function: { name: 'weather', description: 'Weather', parameters } },
      { type: 'function', name: 'weather', description: 'Weather', parameters, strict: true },
    ];
    const bodies: unknown[] = [];
    for (const tool of shapes) {
      const r = await h.call('POST', `/v1/conversations/${body.id}/context`, {
        key,
        body: {
          provider: 'openai-responses',
          model: 'gpt-4o',
          budgetTokens: 20_000,
          tools: [tool],
        },
      });
      expect(r.status).toBe(200);
      bodies.push(r.body.body.tools);
    }
    expect(bodies[1]).toEqual(bodies[0]);
    expect(bodies[2]).toEqual(bodies[0]);
    expect(bodies[0]).toEqual([
      expect.objectContaining({ type: 'function', name: 'weather', parameters }),
    ]);
    const mixed = await h.call('POST', `/v1/conversations/${body.id}/context`, {
      key,
      body: {
        provider: 'anthropic',
        model: 'claude-sonnet-4-5',
        budgetTokens: 20_000,
        tools: [{ type: 'function', function: { name: 'w', parameters: { type: 'array' } } }],
      },
    });
    expect(mixed.status).toBe(400);
  });
});
