import { type AuditEvent, clientFor, type Client, exchange } from './support/api';
import { type Harness, startHarness } from './support/harness';

describe('GET /v1/conversations/{id}/events (the audit log)', () => {
  let h: Harness;
  let c: Client;
  let tenantId: string;
  let keyId: string;
  let id: string;
  beforeAll(async () => {
    h = await startHarness();
    const t = await h.createTenant('audit');
    tenantId = t.id;
    keyId = t.apiKey.split('_')[1];
    c = clientFor(h, t.apiKey);
    const corr = (v: string) => ({ 'x-correlation-id': v });
    const s = await c.post('/v1/conversations', { title: 'audited' }, corr('req-start'));
    id = s.body.id;
    const t1 = await c.post(
      c.conv(id, '/turns'),
      { parentId: null, messages: exchange('1') },
      corr('req-turn-1'),
    );
    const t2 = await c.post(c.conv(id, '/turns'), { messages: exchange('2') }, corr('req-turn-2'));
    await h.call('PUT', c.conv(id, '/tip'), {
      key: c.key,
      body: { messageId: t1.body.tip },
      headers: corr('req-tip'),
    });
    await c.post(
      c.conv(id, '/checkpoints'),
      { label: 'cp', messageId: t2.body.tip },
      corr('req-cp'),
    );
    await c.post(c.conv(id, '/failures'), { input: 'x', error: 'y' });
  });
  afterAll(async () => {
    await h.destroy();
  });

  it('lists every event from revision 0 with revision, type, data and metadata (no global position)', async () => {
    const r = await c.get(c.conv(id, '/events'));
    expect(r.status).toBe(200);
    const items = r.body.items as AuditEvent[];
    expect(items.map((e) => e.type)).toEqual([
      'ConversationStarted',
      'MessageAppended',
      'MessageAppended',
      'TurnCommitted',
      'MessageAppended',
      'MessageAppended',
      'TurnCommitted',
      'TipMoved',
      'CheckpointSet',
      'TurnFailed',
    ]);
    expect(items.map((e) => e.revision)).toEqual(items.map((_, i) => i));
    // Stream revisions only: a global position would show how much other tenants write.
    for (const e of items) expect(e).not.toHaveProperty('position');
    expect(r.body.next).toBeUndefined();
    expect(items[0].data).toMatchObject({ conversationId: id, title: 'audited', forkedFrom: null });
    expect(await c.conversation(id)).toMatchObject({ revision: items.length - 1 });
  });

  it('carries tenant, actor, timestamp and correlation id in the metadata', async () => {
    const items = await c.events(id);
    const expected = [
      'req-start',
      'req-turn-1',
      'req-turn-1',
      'req-turn-1',
      'req-turn-2',
      'req-turn-2',
      'req-turn-2',
      'req-tip',
      'req-cp',
    ];
    expected.forEach((corr, i) => {
      expect(items[i].metadata).toMatchObject({
        tenantId,
        actor: `key:${keyId}`,
        correlationId: corr,
        causationId: expect.any(String),
      });
      const ts = items[i].metadata.timestamp as string;
      expect(new Date(ts).toISOString()).toBe(ts);
    });
    // Without the header, a correlation id is still recorded.
    const last = items[items.length - 1];
    expect(last.metadata).toMatchObject({ tenantId, correlationId: expect.any(String) });
    expect((last.metadata.correlationId as string).length).toBeGreaterThan(0);
    // Events of one command share its causation id; different commands do not.
    expect(items[1].metadata.causationId).toBe(items[3].metadata.causationId);
    expect(items[1].metadata.causationId).not.toBe(items[4].metadata.causationId);
  });

  it('pages with limit and cursor, and starts from a revision', async () => {
    const all = await c.events(id);
    for (const limit of [1, 3, 4]) {
      const seen: AuditEvent[] = [];
      let url: string | null = c.conv(id, `/events?limit=${limit}`);
      while (url) {
        const r = await c.get(url);
        expect(r.status).toBe(200);
        expect(r.body.items.length).toBeLessThanOrEqual(limit);
        seen.push(...r.body.items);
        url = r.body.next
          ? c.conv(id, `/events?limit=${limit}&cursor=${encodeURIComponent(r.body.next)}`)
          : null;
      }
      expect(seen).toEqual(all);
    }
    const from = await c.get(c.conv(id, '/events?fromRevision=7&limit=2'));
    expect(from.body.items.map((e: AuditEvent) => e.revision)).toEqual([7, 8]);
    const rest = await c.get(c.conv(id, `/events?cursor=${encodeURIComponent(from.body.next)}`));
    expect(rest.body.items).toEqual(all.slice(9));
    const beyond = await c.get(c.conv(id, '/events?fromRevision=1000'));
    expect(beyond.status).toBe(200);
    expect(beyond.body).toEqual({ items: [] });
  });

  it('rejects bad queries and answers 404 for an unknown conversation', async () => {
    for (const q of ['fromRevision=-1', 'limit=0', 'cursor=bad', 'fromRevision=x']) {
      const r = await c.get(c.conv(id, `/events?${q}`));
      expect({ q, status: r.status }).toEqual({ q, status: 400 });
    }
    const r = await c.get(c.conv('ghost', '/events'));
    expect(r.status).toBe(404);
    expect(r.body.code).toBe('conversation_not_found');
  });
});
