import { type Harness, startHarness } from './support/harness';

const user = (text: string, id?: string) => ({
  ...(id ? { id } : {}),
  role: 'user',
  content: [{ type: 'text', text }],
});
const assistant = (text: string, id?: string) => ({
  ...(id ? { id } : {}),
  role: 'assistant',
  content: [{ type: 'text', text }],
});

describe('conversations over HTTP', () => {
  let h: Harness;
  let key: string;
  beforeAll(async () => {
    h = await startHarness();
    key = (await h.createTenant('t')).apiKey;
  });
  afterAll(async () => {
    await h.destroy();
  });

  it('starts a conversation and commits a turn, then reads it back', async () => {
    const c = await h.call('POST', '/v1/conversations', { key, body: { title: 'hello' } });
    expect(c.status).toBe(201);
    expect(c.body).toMatchObject({ tip: null, revision: 0 });
    const id = c.body.id;
    const t = await h.call('POST', `/v1/conversations/${id}/turns`, {
      key,
      body: { parentId: null, messages: [user('hi'), assistant('hello!')] },
    });
    expect(t.status).toBe(201);
    expect(t.body.messageIds).toHaveLength(2);
    expect(t.body.tip).toBe(t.body.messageIds[1]);
    const m = await h.call('GET', `/v1/conversations/${id}/messages`, { key });
    expect(m.status).toBe(200);
    expect(m.body.items.map((x: { id: string }) => x.id)).toEqual(t.body.messageIds);
    const g = await h.call('GET', `/v1/conversations/${id}`, { key });
    expect(g.body).toMatchObject({
      id,
      title: 'hello',
      tip: t.body.tip,
      lineage: { forkedFrom: null, forks: [] },
    });
  });
});
