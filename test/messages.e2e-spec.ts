import { pngBase64 } from '@arbor/domain/testing/images';
import {
  clientFor,
  type Client,
  exchange,
  msg,
  type MessageIn,
  text,
  toolResult,
  toolUse,
  user,
} from './support/api';
import { type Harness, startHarness } from './support/harness';

describe('GET .../messages and .../messages/{messageId}', () => {
  let h: Harness;
  let c: Client;
  let id: string;
  let main: string[];
  let side: string[];
  beforeAll(async () => {
    h = await startHarness();
    c = clientFor(h, (await h.createTenant('msgs')).apiKey);
    id = await c.start();
    main = [];
    let tip: string | null = null;
    for (let i = 0; i < 6; i++) {
      const t = await c.turn(id, tip, exchange(`${i}`));
      main.push(...t.messageIds);
      tip = t.tip;
    }
    const s = await c.turn(id, main[3], exchange('side'));
    side = [...main.slice(0, 4), ...s.messageIds];
    await c.moveTip(id, main[11]);
  });
  afterAll(async () => {
    await h.destroy();
  });

  it('pages the active branch root → tip with cursor and limit, each message once', async () => {
    for (const limit of [1, 3, 5, 12, 100]) {
      const ids: string[] = [];
      const sizes: number[] = [];
      let cursor: string | undefined;
      do {
        const q = `?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const r = await c.get(c.conv(id, `/messages${q}`));
        expect(r.status).toBe(200);
        sizes.push(r.body.items.length);
        ids.push(...r.body.items.map((m: { id: string }) => m.id));
        cursor = r.body.next;
      } while (cursor);
      expect({ limit, ids }).toEqual({ limit, ids: main });
      expect(sizes.every((s, i) => s === limit || i === sizes.length - 1)).toBe(true);
      expect(sizes.length).toBe(Math.ceil(main.length / limit));
    }
    const all = await c.branch(id);
    expect(all.map((m) => m.parentId)).toEqual([null, ...main.slice(0, -1)]);
    expect(all[0]).toMatchObject({ id: main[0], role: 'user', content: [text('question 0')] });
  });

  it('follows the tip: after a branch move the same cursor walk gives the other path', async () => {
    const first = await c.get(c.conv(id, '/messages?limit=2'));
    await c.moveTip(id, side[side.length - 1]);
    expect(await c.branchIds(id)).toEqual(side);
    await c.moveTip(id, main[main.length - 1]);
    expect(await c.branchIds(id)).toEqual(main);
    expect((await c.get(c.conv(id, '/messages?limit=2'))).body).toEqual(first.body);
  });

  it('an empty conversation has an empty branch', async () => {
    const empty = await c.start();
    const r = await c.get(c.conv(empty, '/messages'));
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ items: [] });
  });

  it('rejects bad paging queries with their path', async () => {
    for (const q of ['limit=0', 'limit=1001', 'cursor=xyz', 'cursor=', 'limit=2&other=1']) {
      const r = await c.get(c.conv(id, `/messages?${q}`));
      expect({ q, status: r.status, code: r.body.code }).toEqual({
        q,
        status: 400,
        code: 'validation_failed',
      });
    }
    await c.start(); // so the conversation list has a second page
    const next = (await c.get('/v1/conversations?limit=1')).body.next;
    expect(typeof next).toBe('string');
    const r = await c.get(c.conv(id, `/messages?cursor=${encodeURIComponent(next)}`));
    expect(r.status).toBe(400);
    expect(r.body.errors[0].path).toBe('query.cursor');
  });

  it('returns one message with the original bytes, on or off the active branch', async () => {
    const conv = await c.start();
    const image = pngBase64(300);
    const sent: MessageIn[] = [
      {
        id: 'prompt',
        role: 'user',
        content: [
          text('look  at\tthis\n\u00e9\u{1F600}'),
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: image } },
        ],
        pinned: true,
        metadata: { source: 'cli', nested: { a: [1, 2] } },
      },
      {
        id: 'call',
        role: 'assistant',
        content: [
          {
            type: 'thinking',
            thinking: 'let me think\n  carefully',
            signature: 'c2lnbmF0dXJl+/==',
          },
          { type: 'redacted_thinking', data: 'EuYBCkQYAiJA' },
          toolUse('tu1', 'read_file', { path: '/a b', opts: { lines: [1, 2], deep: null } }),
        ],
        model: 'claude-x',
        usage: { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 3 },
      },
      msg(
        'user',
        [
          toolResult(
            'tu1',
            [
              text('file body'),
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: image } },
            ],
            true,
          ),
        ],
        'result',
      ),
      { id: 'final', role: 'assistant', content: [text('done')] },
    ];
    const t = await c.turn(conv, null, sent);
    expect(t.messageIds).toEqual(['prompt', 'call', 'result', 'final']);
    const t2 = await c.turn(conv, 'final', [
      user('next', 'p2'),
      msg('assistant', [text('a2')], 'f2'),
    ]);
    await c.moveTip(conv, 'final');
    for (const [i, m] of sent.entries()) {
      const r = await c.get(c.conv(conv, `/messages/${m.id}`));
      expect(r.status).toBe(200);
      const { turnId, createdAt, ...rest } = r.body;
      expect(turnId).toBe(t.turnId);
      expect(typeof createdAt).toBe('string');
      expect(rest).toEqual({ ...m, parentId: i === 0 ? null : sent[i - 1].id });
    }
    // Off the active branch, still there.
    const off = await c.get(c.conv(conv, `/messages/${t2.messageIds[1]}`));
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({
      id: 'f2',
      parentId: 'p2',
      role: 'assistant',
      content: [text('a2')],
    });
  });

  it('answers 404 message_not_found for an unknown message and 404 conversation_not_found', async () => {
    const r = await c.get(c.conv(id, '/messages/nope'));
    expect(r.status).toBe(404);
    expect(r.body.code).toBe('message_not_found');
    const g = await c.get(c.conv('ghost', `/messages/${main[0]}`));
    expect(g.status).toBe(404);
    expect(g.body.code).toBe('conversation_not_found');
    const gl = await c.get(c.conv('ghost', '/messages'));
    expect(gl.status).toBe(404);
    expect(gl.body.code).toBe('conversation_not_found');
  });
});
