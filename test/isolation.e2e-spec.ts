import {
  assistant,
  clientFor,
  type Client,
  conversationRoutes,
  exchange,
  problemShape,
  type RouteCall,
  user,
} from './support/api';
import { type Harness, startHarness } from './support/harness';

/**
 * Tenant isolation (invariant 9): a key of one tenant can neither read nor write nor learn the
 * existence of another tenant's data. Another tenant's ids answer exactly like missing ids.
 */
describe('tenant isolation', () => {
  let h: Harness;
  let a: Client;
  let b: Client;
  const send = (c: Client, r: RouteCall) => h.call(r.method, r.url, { key: c.key, body: r.body });

  beforeAll(async () => {
    h = await startHarness();
    a = clientFor(h, (await h.createTenant('A')).apiKey);
    b = clientFor(h, (await h.createTenant('B')).apiKey);
    // The same conversation id and the same message ids in both tenants, different content.
    for (const [c, who] of [
      [a, 'A'],
      [b, 'B'],
    ] as const) {
      expect((await c.post('/v1/conversations', { id: 'shared', title: `of ${who}` })).status).toBe(
        201,
      );
      await c.turn('shared', null, [
        user(`${who} asks`, 'm-u1'),
        assistant(`${who} answers`, 'm-a1'),
      ]);
    }
    await a.turn('shared', 'm-a1', [user('A only', 'm-u2'), assistant('A only too', 'm-a2')]);
    await a.checkpoint('shared', 'a-label', 'm-a2');
    await a.post(a.conv('shared', '/failures'), { input: 'A input', error: 'A error' });
    // One conversation each that the other tenant has never heard of.
    for (const [c, p] of [
      [a, 'a'],
      [b, 'b'],
    ] as const) {
      await c.post('/v1/conversations', { id: `${p}-only` });
      const t = await c.turn(`${p}-only`, null, [
        user('q', `${p}o-u1`),
        assistant('a', `${p}o-a1`),
      ]);
      await c.checkpoint(`${p}-only`, `${p}-cp`, t.tip);
      await c.post(c.conv(`${p}-only`, '/failures'), { input: 'x', error: 'y' });
      await c.post(c.conv(`${p}-only`, '/forks'), {});
    }
  });
  afterAll(async () => {
    await h.destroy();
  });

  it('one conversation id and the same message ids, two tenants: each sees only its own', async () => {
    const ma = (await a.branch('shared')) as { id: string; content: unknown }[];
    const mb = (await b.branch('shared')) as { id: string; content: unknown }[];
    expect(ma.map((m) => m.id)).toEqual(['m-u1', 'm-a1', 'm-u2', 'm-a2']);
    expect(mb.map((m) => m.id)).toEqual(['m-u1', 'm-a1']);
    expect(JSON.stringify(mb)).not.toContain('A ');
    expect(JSON.stringify(ma)).not.toContain('B ');
    expect((await b.conversation('shared')).title).toBe('of B');
    expect((await b.tree('shared')).nodes.map((n) => n.id)).toEqual(['m-u1', 'm-a1']);
    expect((await b.get(b.conv('shared', '/checkpoints'))).body.items).toEqual([]);
    expect((await b.get(b.conv('shared', '/retry'))).body.code).toBe('nothing_to_retry');
    const eb = await b.events('shared');
    expect(eb.map((e) => e.type)).toEqual([
      'ConversationStarted',
      'MessageAppended',
      'MessageAppended',
      'TurnCommitted',
    ]);
    expect(JSON.stringify(eb)).not.toContain('A asks');
    const exported = await b.get(b.conv('shared', '/export?format=jsonl'));
    expect(exported.text).not.toContain('A ');
    // Writes stay in their own tenant: B's turn on m-a1 does not touch A's tree.
    const before = await a.tree('shared');
    await b.turn('shared', 'm-a1', [user('B more', 'm-u2'), assistant('B more too', 'm-a2')]);
    expect(await a.tree('shared')).toEqual(before);
    expect((await a.get(a.conv('shared', '/messages/m-a2'))).body.content).toEqual([
      { type: 'text', text: 'A only too' },
    ]);
  });

  it('lists only the caller tenant conversations', async () => {
    const la = (await a.get('/v1/conversations?limit=1000')).body.items.map(
      (c: { id: string }) => c.id,
    );
    const lb = (await b.get('/v1/conversations?limit=1000')).body.items.map(
      (c: { id: string }) => c.id,
    );
    expect(la).toContain('a-only');
    expect(la).not.toContain('b-only');
    expect(lb).toContain('b-only');
    expect(lb).not.toContain('a-only');
    expect(la.filter((id: string) => lb.includes(id))).toEqual(['shared']);
  });

  for (const [probe, owner, p] of [
    ['B', 'A', 'a'],
    ['A', 'B', 'b'],
  ] as const) {
    it(`${probe} probing ${owner}'s conversation: every endpoint answers exactly like a missing id`, async () => {
      const prober = probe === 'B' ? b : a;
      const ownerClient = owner === 'A' ? a : b;
      const theirs = conversationRoutes(`${p}-only`, `${p}o-a1`, `${p}-cp`);
      const missing = conversationRoutes('never-existed', 'no-such-msg', `${p}-cp`);
      const ownerEvents = await ownerClient.events(`${p}-only`);
      for (let i = 0; i < theirs.length; i++) {
        const r1 = await send(prober, theirs[i]);
        const r2 = await send(prober, missing[i]);
        expect({ route: theirs[i].name, status: r1.status, code: r1.body?.code }).toEqual({
          route: theirs[i].name,
          status: 404,
          code: 'conversation_not_found',
        });
        expect({ route: theirs[i].name, ...problemShape(r1, `${p}-only`, `${p}o-a1`) }).toEqual({
          route: theirs[i].name,
          ...problemShape(r2, 'never-existed', 'no-such-msg'),
        });
      }
      // Nothing was written to the owner's conversation, and the owner sees it whole.
      expect(await ownerClient.events(`${p}-only`)).toEqual(ownerEvents);
      expect((await ownerClient.get(ownerClient.conv(`${p}-only`, '/retry'))).status).toBe(200);
    });
  }

  it("another tenant's message ids and labels inside a shared conversation id answer like missing ones", async () => {
    // A's shared conversation has m-x2 style ids B never had: use A-only ids in B's "shared".
    await a.turn('shared', 'm-a2', [user('deep', 'only-a-u'), assistant('deep', 'only-a-a')]);
    await a.checkpoint('shared', 'only-a-label', 'only-a-a');
    const probes = (messageId: string, label: string) =>
      conversationRoutes('shared', messageId, label).filter((r) =>
        ['turns', 'tip', 'forks', 'set checkpoint', 'message', 'rewind'].includes(r.name),
      );
    const theirs = probes('only-a-a', 'only-a-label');
    const missing = probes('nothing-here', 'nothing-label');
    const bEvents = await b.events('shared');
    for (let i = 0; i < theirs.length; i++) {
      const r1 = await send(b, theirs[i]);
      const r2 = await send(b, missing[i]);
      expect(r1.status).toBe(404);
      expect({ route: theirs[i].name, ...problemShape(r1, 'only-a-a', 'only-a-label') }).toEqual({
        route: theirs[i].name,
        ...problemShape(r2, 'nothing-here', 'nothing-label'),
      });
    }
    expect(await b.events('shared')).toEqual(bEvents);
  });

  it('a tenant can take an id another tenant uses: no 409, nothing learned, nothing shared', async () => {
    const r = await b.post('/v1/conversations', { id: 'a-only', title: 'mine now' });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({ id: 'a-only', tip: null, revision: 0 });
    expect(await b.tree('a-only')).toEqual({
      tip: null,
      nodes: [],
      branchPoints: [],
      checkpoints: [],
    });
    expect((await b.get(b.conv('a-only', '/retry'))).body.code).toBe('nothing_to_retry');
    const t = await b.turn('a-only', null, exchange('b'));
    expect(await a.branchIds('a-only')).toEqual(['ao-u1', 'ao-a1']);
    expect(await b.branchIds('a-only')).toEqual(t.messageIds);
    expect((await a.conversation('a-only')).title).toBeNull();
  });
});
