/**
 * `GET /v1/conversations?q&sort&order`: the list in another order than creation and filtered by a
 * title prefix, keyset-paged with cursors bound to the sort, order and prefix (the read models'
 * own cases are in the shared read-model contract suite).
 */
import { type Client, exchange, newTenant } from './support/api';
import { type Harness, startHarness } from './support/harness';

describe('the conversation list: filter and sort', () => {
  let h: Harness;
  let a: Client;
  const made: { id: string; title: string }[] = [];

  const all = async (query: string, limit: number) => {
    const ids: string[] = [];
    let cursor: string | undefined;
    do {
      const r = await a.get(
        `/v1/conversations?${query}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      expect(r.status).toBe(200);
      ids.push(...r.body.items.map((c: { id: string }) => c.id));
      cursor = r.body.next;
    } while (cursor);
    return ids;
  };

  beforeAll(async () => {
    h = await startHarness();
    a = (await newTenant(h, 'a')).client;
    for (const title of ['beta', 'alpha', 'beta two', 'gamma', 'Beta', 'b']) {
      made.push({ id: await a.start({ title }), title });
    }
    // Activity: the second one is the most recent.
    await a.turn(made[1].id, null, exchange('late'));
    // Another tenant's "beta" is never listed.
    await (await newTenant(h, 'b')).client.start({ title: 'beta' });
  });
  afterAll(() => h.destroy());

  it('sorts by title both ways, pages by cursor, and filters by a title prefix', async () => {
    const byTitle = [...made].sort((x, y) =>
      Buffer.compare(Buffer.from(x.title), Buffer.from(y.title)),
    );
    for (const limit of [1, 2, 50]) {
      expect(await all('sort=title', limit)).toEqual(byTitle.map((m) => m.id));
      expect(await all('sort=title&order=desc', limit)).toEqual(byTitle.map((m) => m.id).reverse());
      expect(await all('q=beta', limit)).toEqual(
        byTitle.filter((m) => m.title.startsWith('beta')).map((m) => m.id),
      );
    }
    expect(await all('q=zzz', 5)).toEqual([]);
  });

  it('sorts by last activity and by creation descending', async () => {
    const recent = await all('sort=lastActivity&order=desc', 2);
    expect(recent[0]).toBe(made[1].id);
    expect(new Set(recent).size).toBe(made.length);
    expect(await all('sort=created&order=desc', 4)).toEqual(made.map((m) => m.id).reverse());
    expect(await all('sort=created', 4)).toEqual(made.map((m) => m.id));
  });

  it('refuses q with another sort, and a cursor of another order, as problem+json 400', async () => {
    const r = await a.get('/v1/conversations?q=b&sort=lastActivity');
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('validation_failed');
    const first = await a.get('/v1/conversations?sort=title&limit=1');
    const other = await a.get(
      `/v1/conversations?sort=title&order=desc&limit=1&cursor=${encodeURIComponent(first.body.next)}`,
    );
    expect(other.status).toBe(400);
    expect(other.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });
});
