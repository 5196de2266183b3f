import { clientFor, exchange, type Client } from './support/api';
import { type Harness, startHarness } from './support/harness';
import { revokedKeysHearNothing } from './support/revocation';
import { openSse, type SseClient, type SseFrame } from './support/sse';

const data = (f: SseFrame) => JSON.parse(f.data as string) as { revision: number; type: string };

/** Reads data frames until one of type `type` arrives; returns every frame read. */
const until = async (s: SseClient, type: string) => {
  const got: { revision: number; type: string; id?: string }[] = [];
  for (;;) {
    const f = await s.next();
    got.push({ ...data(f), id: f.id });
    if (data(f).type === type) return got;
  }
};

describe('GET /v1/conversations/{id}/stream (Server-Sent Events)', () => {
  let h: Harness;
  let a: Client;
  let b: Client;
  const open: SseClient[] = [];
  const sse = async (c: Client, id: string, headers: Record<string, string> = {}) => {
    const s = await openSse(h.baseUrl, c.conv(id, '/stream'), c.key, headers);
    open.push(s);
    return s;
  };

  beforeAll(async () => {
    h = await startHarness({ ARBOR_STREAM_MAX_PER_TENANT: '3', ARBOR_STREAM_HEARTBEAT_MS: '200' });
    a = clientFor(h, (await h.createTenant('a')).apiKey);
    b = clientFor(h, (await h.createTenant('b')).apiKey);
  });
  afterEach(() => {
    for (const s of open.splice(0)) s.close();
  });
  afterAll(async () => {
    await h.destroy();
  });

  it('sends each committed event live, once projected, with its revision as id', async () => {
    const id = await a.start({ title: 'live' });
    const s = await sse(a, id);
    expect(s.status).toBe(200);
    expect(s.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect((await s.next((f) => f.retry !== undefined)).retry).toBe('2000');
    const t = await a.turn(id, null, exchange('1'));
    const got = await until(s, 'TurnCommitted');
    // Started at revision 0 (before the stream): the turn is 1 (user), 2 (assistant), 3 (commit).
    expect(got.map((e) => [e.revision, e.type])).toEqual([
      [1, 'MessageAppended'],
      [2, 'MessageAppended'],
      [3, 'TurnCommitted'],
    ]);
    expect(got.map((e) => e.id)).toEqual(['1', '2', '3']);
    expect(t.revision).toBe(3);
    // Sent once the read models hold it: the tree read right after shows the new tip.
    expect((await a.tree(id)).tip).toBe(t.tip);
  });

  it('Last-Event-ID replays the missed events from the log, then goes live', async () => {
    const id = await a.start();
    await a.turn(id, null, exchange('1'));
    await a.turn(id, undefined, exchange('2'));
    const s = await sse(a, id, { 'last-event-id': '2' });
    const replayed = await until(s, 'TurnCommitted');
    expect(replayed.map((e) => e.revision)).toEqual([3]);
    const second = await until(s, 'TurnCommitted');
    expect(second.map((e) => e.revision)).toEqual([4, 5, 6]);
    await a.turn(id, undefined, exchange('3'));
    expect((await until(s, 'TurnCommitted')).map((e) => e.revision)).toEqual([7, 8, 9]);
    // -1: from the first event.
    const all = await sse(a, id, { 'last-event-id': '-1' });
    expect((await all.next()).id).toBe('0');
    expect(data(await all.next()).revision).toBe(1);
  });

  it("is tenant-scoped: another tenant's id answers 404 like a missing one", async () => {
    const id = await a.start();
    const other = await sse(b, id);
    expect(other.status).toBe(404);
    expect(JSON.parse(other.errorText).code).toBe('conversation_not_found');
    const missing = await sse(b, 'no-such-conversation');
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.errorText).code).toBe('conversation_not_found');
    const anonymous = await openSse(h.baseUrl, a.conv(id, '/stream'), 'arb_x_y');
    expect(anonymous.status).toBe(401);
  });

  it('refuses a malformed Last-Event-ID with 400', async () => {
    const id = await a.start();
    for (const bad of ['x', '1.5', '-2', '007']) {
      const s = await sse(a, id, { 'last-event-id': bad });
      expect(s.status).toBe(400);
      expect(JSON.parse(s.errorText).code).toBe('validation_failed');
    }
  });

  it('bounds open streams per tenant (429 too_many_streams), not across tenants', async () => {
    const id = await a.start();
    const first = [await sse(a, id), await sse(a, id), await sse(a, id)];
    expect(first.map((s) => s.status)).toEqual([200, 200, 200]);
    const over = await sse(a, id);
    expect(over.status).toBe(429);
    expect(JSON.parse(over.errorText).code).toBe('too_many_streams');
    const bid = await b.start();
    expect((await sse(b, bid)).status).toBe(200);
    // Closing one frees its slot (the server sees the socket close).
    first[0].close();
    let again: SseClient | null = null;
    for (let i = 0; i < 100 && (again === null || again.status !== 200); i++) {
      await new Promise((r) => setTimeout(r, 20));
      again = await sse(a, id);
    }
    expect(again?.status).toBe(200);
  });

  it('sends heartbeat comments while nothing happens', async () => {
    const id = await a.start();
    const s = await sse(a, id);
    const f = await s.next((x) => x.comments.includes('heartbeat'), 5000);
    expect(f.data).toBeUndefined();
  });
});

describe('GET …/stream on shutdown', () => {
  it('ends every open stream when the server stops, and the stop does not hang on them', async () => {
    const h = await startHarness();
    try {
      const a = clientFor(h, (await h.createTenant('a')).apiKey);
      const id = await a.start();
      const s1 = await openSse(h.baseUrl, a.conv(id, '/stream'), a.key);
      const s2 = await openSse(h.baseUrl, a.conv(id, '/stream'), a.key, { 'last-event-id': '-1' });
      expect(data(await s2.next()).revision).toBe(0);
      await h.stop();
      await s1.ended;
      await s2.ended;
      await expect(s1.next(undefined, 100)).rejects.toThrow('the stream ended');
    } finally {
      await h.destroy();
    }
  });
});

describe('GET …/stream after its key is revoked or its tenant erased', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ ARBOR_STREAM_HEARTBEAT_MS: '200' });
  });
  afterAll(async () => {
    await h.destroy();
  });

  it('closes at once, and no event reaches a revoked key', async () => {
    await revokedKeysHearNothing(h.baseUrl, h.baseUrl);
  });
});
