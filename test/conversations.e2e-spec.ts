import { clientFor, type Client, exchange, assistant, user } from './support/api';
import { type Harness, startHarness } from './support/harness';

describe('conversations: start, get, list (HTTP, real SQLite file)', () => {
  let h: Harness;
  let c: Client;
  beforeAll(async () => {
    h = await startHarness();
    c = clientFor(h, (await h.createTenant('t')).apiKey);
  });
  afterAll(async () => {
    await h.destroy();
  });

  it('starts a conversation and commits a turn, then reads it back', async () => {
    const s = await c.post('/v1/conversations', { title: 'hello' });
    expect(s.status).toBe(201);
    expect(s.body).toEqual({ id: expect.any(String), tip: null, revision: 0 });
    const id = s.body.id;
    const t = await c.post(c.conv(id, '/turns'), {
      parentId: null,
      messages: [user('hi'), assistant('hello!')],
    });
    expect(t.status).toBe(201);
    expect(t.body.messageIds).toHaveLength(2);
    expect(t.body.tip).toBe(t.body.messageIds[1]);
    const m = await c.get(c.conv(id, '/messages'));
    expect(m.status).toBe(200);
    expect(m.body.items.map((x: { id: string }) => x.id)).toEqual(t.body.messageIds);
    const g = await c.get(c.conv(id));
    expect(g.status).toBe(200);
    expect(g.body).toMatchObject({
      id,
      title: 'hello',
      tip: t.body.tip,
      revision: t.body.revision,
      lineage: { forkedFrom: null, forks: [] },
      counts: { messages: 2, turns: 1 },
    });
  });

  it('starts with a caller-chosen id, title and metadata; the same id again is 409', async () => {
    const s = await c.post('/v1/conversations', {
      id: 'chosen-id_1',
      title: 'mine',
      metadata: { project: 'x', n: 1 },
    });
    expect(s.status).toBe(201);
    expect(s.body).toEqual({ id: 'chosen-id_1', tip: null, revision: 0 });
    const g = await c.conversation('chosen-id_1');
    expect(g).toMatchObject({
      id: 'chosen-id_1',
      title: 'mine',
      tip: null,
      revision: 0,
      metadata: { project: 'x', n: 1 },
      lineage: { forkedFrom: null, forks: [] },
    });
    const again = await c.post('/v1/conversations', { id: 'chosen-id_1' });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('conversation_exists');
    expect(again.headers.get('content-type')).toContain('application/problem+json');
  });

  it('starts with no body at all; title is null', async () => {
    const r = await h.call('POST', '/v1/conversations', { key: c.key });
    expect(r.status).toBe(201);
    expect((await c.conversation(r.body.id)).title).toBeNull();
  });

  it('rejects bad start bodies with precise paths', async () => {
    const r = await c.post('/v1/conversations', { id: 'has space', title: 5, extra: 1 });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('validation_failed');
    expect(r.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(
      expect.arrayContaining(['body.id', 'body.title']),
    );
  });

  it('checks the path id before the body: a malformed id is named alone', async () => {
    for (const [method, route] of [
      ['POST', '/turns'],
      ['PUT', '/tip'],
      ['POST', '/checkpoints'],
      ['POST', '/draft/commit'],
    ] as const) {
      const r = await h.call(method, `/v1/conversations/bad.id${route}`, {
        key: c.key,
        body: { messages: 'not a list', messageId: 5, label: 7 },
      });
      expect([route, r.status, r.body.code, r.body.errors]).toEqual([
        route,
        400,
        'validation_failed',
        [expect.objectContaining({ path: 'params' })],
      ]);
    }
  });

  it('answers 404 conversation_not_found for an unknown id', async () => {
    const r = await c.get(c.conv('never-started'));
    expect(r.status).toBe(404);
    expect(r.body.code).toBe('conversation_not_found');
  });

  it('counts revision and messages as turns are committed', async () => {
    const id = await c.start();
    const t1 = await c.turn(id, null, exchange('1'));
    expect(t1.revision).toBe(3); // started (0), 2 × MessageAppended, TurnCommitted
    const t2 = await c.turn(id, t1.tip, exchange('2'));
    expect(t2.revision).toBe(6);
    expect(await c.conversation(id)).toMatchObject({
      tip: t2.tip,
      revision: 6,
      counts: { messages: 4, turns: 2 },
    });
  });

  it('lists the tenant conversations oldest first, cursor-paginated, each exactly once', async () => {
    const other = clientFor(h, (await h.createTenant('lister')).apiKey);
    const created: string[] = [];
    for (let i = 0; i < 7; i++) created.push(await other.start({ title: `c${i}` }));
    const seen: string[] = [];
    const pageSizes: number[] = [];
    let cursor: string | undefined;
    do {
      const r = await other.get(
        `/v1/conversations?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      expect(r.status).toBe(200);
      pageSizes.push(r.body.items.length);
      for (const item of r.body.items) {
        expect(item).toMatchObject({
          id: expect.any(String),
          tip: null,
          revision: 0,
          lineage: { forkedFrom: null },
        });
        seen.push(item.id);
      }
      cursor = r.body.next;
    } while (cursor);
    expect(pageSizes).toEqual([3, 3, 1]);
    expect(seen).toEqual(created);
    const all = await other.get('/v1/conversations');
    expect(all.body.items.map((x: { id: string }) => x.id)).toEqual(created);
    expect(all.body.next).toBeUndefined();
    const exact = await other.get('/v1/conversations?limit=7');
    expect(exact.body.items).toHaveLength(7);
    expect(exact.body.next).toBeUndefined();
  });

  it('rejects bad list queries', async () => {
    for (const q of ['limit=0', 'limit=1001', 'limit=abc', 'cursor=garbage', 'nope=1']) {
      const r = await c.get(`/v1/conversations?${q}`);
      expect({ q, status: r.status, code: r.body.code }).toEqual({
        q,
        status: 400,
        code: 'validation_failed',
      });
    }
    // A cursor of another list is refused too.
    const id = await c.start();
    await c.turn(id, null, exchange('a'));
    await c.turn(id, undefined, exchange('b'));
    const page = await c.get(c.conv(id, '/messages?limit=1'));
    const r = await c.get(`/v1/conversations?cursor=${encodeURIComponent(page.body.next)}`);
    expect(r.status).toBe(400);
    expect(r.body.errors[0].path).toBe('query.cursor');
  });
});
