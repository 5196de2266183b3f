/**
 * Open turns: a draft of the turn in progress is saved as events, read back, never history or
 * context, replaced by a new draft, and committed (plus the rest of the turn) atomically.
 */
import { type Harness, startHarness } from './support/harness';

const text = (role: string, t: string) => ({ role, content: [{ type: 'text', text: t }] });
const paused = [
  text('user', 'delete the file?'),
  { role: 'assistant', content: [{ type: 'tool_use', id: 'call_1', name: 'rm', input: {} }] },
];
const rest = [
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_1', content: 'done' }] },
  text('assistant', 'deleted'),
];

describe('drafts (open turns)', () => {
  let h: Harness;
  let key: string;
  beforeAll(async () => {
    h = await startHarness();
    key = (await h.createTenant()).apiKey;
  });
  afterAll(() => h.destroy());

  it('saves, reads, keeps out of history and context, commits atomically', async () => {
    const { body } = await h.call('POST', '/v1/conversations', { key, body: {} });
    const conv = `/v1/conversations/${body.id}`;
    expect((await h.call('GET', `${conv}/draft`, { key })).body.code).toBe('draft_not_found');
    const saved = await h.call('PUT', `${conv}/draft`, {
      key,
      body: { parentId: null, messages: paused },
    });
    expect(saved.status).toBe(200);
    expect(saved.body.replayed).toBe(false);
    const again = await h.call('PUT', `${conv}/draft`, {
      key,
      body: { parentId: null, messages: paused },
    });
    expect(again.body).toMatchObject({ draftId: saved.body.draftId, replayed: true });
    const read = await h.call('GET', `${conv}/draft`, { key });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ draftId: saved.body.draftId, parentId: null, tip: null });
    expect(read.body.messages).toEqual(paused);
    expect((await h.call('GET', `${conv}/messages`, { key })).body.items).toEqual([]);
    const context = await h.call('POST', `${conv}/context`, {
      key,
      body: { provider: 'anthropic', model: 'claude-sonnet-4-5', budgetTokens: 20_000 },
    });
    expect(context.body.body.messages).toEqual([]);
    // An unfinished draft cannot be committed as it is: every turn rule applies then.
    const early = await h.call('POST', `${conv}/draft/commit`, { key, body: {} });
    expect(early.status).toBe(422);
    expect(early.body.violations[0]).toMatchObject({ code: 'unanswered_tool_use' });
    const committed = await h.call('POST', `${conv}/draft/commit`, {
      key,
      body: { turnId: 't1', messages: rest },
    });
    expect(committed.status).toBe(201);
    expect(committed.body.messageIds).toHaveLength(4);
    expect((await h.call('GET', `${conv}/draft`, { key })).status).toBe(404);
    const history = await h.call('GET', `${conv}/messages`, { key });
    expect(history.body.items).toHaveLength(4);
    const retried = await h.call('POST', `${conv}/draft/commit`, {
      key,
      body: { turnId: 't1', messages: rest },
    });
    expect(retried.status).toBe(200);
    expect(retried.body.replayed).toBe(true);
    const events = await h.call('GET', `${conv}/events`, { key });
    const types = events.body.items.map((e: { type: string }) => e.type);
    expect(types.slice(-2)).toEqual(['TurnCommitted', 'DraftDiscarded']);
  });

  it('a retry of a committed draft answers like POST …/turns: the same revision, other messages 409', async () => {
    const { body } = await h.call('POST', '/v1/conversations', { key, body: {} });
    const conv = `/v1/conversations/${body.id}`;
    await h.call('PUT', `${conv}/draft`, { key, body: { parentId: null, messages: paused } });
    const committed = await h.call('POST', `${conv}/draft/commit`, {
      key,
      body: { turnId: 'd1', messages: rest },
    });
    expect(committed.status).toBe(201);
    const retried = await h.call('POST', `${conv}/draft/commit`, {
      key,
      body: { turnId: 'd1', messages: rest },
    });
    expect(retried.status).toBe(200);
    const { replayed, ...answer } = retried.body;
    expect(replayed).toBe(true);
    const { replayed: first, ...original } = committed.body;
    expect(first).toBe(false);
    expect(answer).toEqual(original);
    // Other messages under the committed turnId: the conflict POST …/turns answers.
    const other = [rest[0], text('assistant', 'something else')];
    const conflict = await h.call('POST', `${conv}/draft/commit`, {
      key,
      body: { turnId: 'd1', messages: other },
    });
    const turns = await h.call('POST', `${conv}/turns`, {
      key,
      body: { turnId: 'd1', parentId: null, messages: [...paused, ...other] },
    });
    expect([conflict.status, conflict.body.code]).toEqual([409, 'turn_id_conflict']);
    expect([turns.status, turns.body.code]).toEqual([409, 'turn_id_conflict']);
    // A turn committed without a draft: a draft-commit retry is matched on the whole turn.
    const whole = [text('user', 'q'), text('assistant', 'a')];
    const plain = await h.call('POST', `${conv}/turns`, {
      key,
      body: { turnId: 'p1', messages: whole },
    });
    expect(plain.status).toBe(201);
    const same = await h.call('POST', `${conv}/draft/commit`, {
      key,
      body: { turnId: 'p1', messages: whole },
    });
    expect([same.status, same.body.revision]).toEqual([200, plain.body.revision]);
    const differs = await h.call('POST', `${conv}/draft/commit`, {
      key,
      body: { turnId: 'p1', messages: [text('user', 'other')] },
    });
    expect([differs.status, differs.body.code]).toEqual([409, 'turn_id_conflict']);
  });

  it('a new draft replaces the old; DELETE discards; a bad draft is 422 with body. paths', async () => {
    const { body } = await h.call('POST', '/v1/conversations', { key, body: {} });
    const conv = `/v1/conversations/${body.id}`;
    await h.call('PUT', `${conv}/draft`, { key, body: { parentId: null, messages: paused } });
    const second = await h.call('PUT', `${conv}/draft`, {
      key,
      body: { parentId: null, messages: [text('user', 'other')] },
    });
    const read = await h.call('GET', `${conv}/draft`, { key });
    expect(read.body.draftId).toBe(second.body.draftId);
    expect(read.body.messages).toEqual([text('user', 'other')]);
    const gone = await h.call('DELETE', `${conv}/draft`, { key });
    expect(gone.body.discarded).toBe(true);
    expect((await h.call('GET', `${conv}/draft`, { key })).status).toBe(404);
    expect((await h.call('DELETE', `${conv}/draft`, { key })).body.discarded).toBe(false);
    const bad = await h.call('PUT', `${conv}/draft`, {
      key,
      body: { parentId: null, messages: [text('assistant', 'no prompt')] },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.violations[0].path).toBe('body.messages[0].role');
  });
});
