import {
  assistant,
  clientFor,
  type Client,
  exchange,
  msg,
  text,
  toolResult,
  toolUse,
  user,
} from './support/api';
import { type Harness, startHarness } from './support/harness';

/** Ten messages on one branch: a plain turn, a two-round tool loop, a plain turn. */
const TURNS = [
  exchange('1'),
  [
    user('use the tools'),
    msg('assistant', [toolUse('x1')]),
    msg('user', [toolResult('x1', 'one')]),
    msg('assistant', [text('and another'), toolUse('x2')]),
    msg('user', [toolResult('x2', 'two')]),
    assistant('done with tools'),
  ],
  exchange('3'),
];

describe('POST /v1/conversations/{id}/resume', () => {
  let h: Harness;
  let c: Client;
  beforeAll(async () => {
    h = await startHarness();
    c = clientFor(h, (await h.createTenant('resume')).apiKey);
  });
  afterAll(async () => {
    await h.destroy();
  });

  const conversation = async () => {
    const id = await c.start();
    let tip: string | null = null;
    const turns = [];
    for (const messages of TURNS) {
      const t = await c.turn(id, tip, messages);
      turns.push(t);
      tip = t.tip;
    }
    return { id, turns, ids: turns.flatMap((t) => t.messageIds) };
  };

  it('never starts the kept window with an orphan tool result, whatever the limit', async () => {
    const s = await conversation();
    const byId = new Map((await c.branch(s.id)).map((m) => [m.id as string, m]));
    for (let keep = 1; keep <= s.ids.length + 1; keep++) {
      const r = await c.post(c.conv(s.id, '/resume'), { keepMessages: keep });
      expect(r.status).toBe(200);
      const start = s.ids.indexOf(r.body.cutAt);
      expect(start).toBeGreaterThanOrEqual(0);
      const first = byId.get(r.body.cutAt) as { role: string; content: { type: string }[] };
      const previous = start === 0 ? null : (byId.get(s.ids[start - 1]) as typeof first);
      // A clean start: the root, or a user prompt that answers no call and follows no call.
      if (start > 0) {
        expect(first.role).toBe('user');
        expect(first.content.some((b) => b.type === 'tool_result')).toBe(false);
        expect(previous?.content.some((b) => b.type === 'tool_use')).toBe(false);
      }
      expect(r.body.keptCount).toBe(s.ids.length - start);
      // The window keeps at least what was asked for when that fits the branch.
      expect(r.body.keptCount).toBeGreaterThanOrEqual(Math.min(keep, s.ids.length));
    }
  });

  it('moves the cut back to the turn start rather than splitting a tool call from its result', async () => {
    const s = await conversation();
    // Keeping 4 would start at the second tool_result: the cut moves back to that turn's prompt.
    const r = await c.post(c.conv(s.id, '/resume'), { keepMessages: 4 });
    expect(r.body).toMatchObject({
      cutAt: s.turns[1].messageIds[0],
      droppedCheckpoints: [],
      keptCount: 8,
    });
    const exact = await c.post(c.conv(s.id, '/resume'), { keepMessages: 2 });
    expect(exact.body).toMatchObject({ cutAt: s.turns[2].messageIds[0], keptCount: 2 });
    const tokens = await c.post(c.conv(s.id, '/resume'), { keepTokens: 1 });
    expect(tokens.status).toBe(200);
    expect(tokens.body.cutAt).toBe(s.turns[2].messageIds[0]);
    expect(tokens.body.keptWholeLastTurn).toBe(true);
    expect((await c.conversation(s.id)).cutAt).toBe(s.turns[2].messageIds[0]);
  });

  it('drops the checkpoints outside the cut: one CheckpointDropped each, before RunResumed', async () => {
    const s = await conversation();
    await c.checkpoint(s.id, 'b-first', s.turns[0].tip);
    await c.checkpoint(s.id, 'a-second', s.turns[1].tip);
    await c.checkpoint(s.id, 'c-last', s.turns[2].tip);
    const before = await c.events(s.id);
    const r = await c.post(c.conv(s.id, '/resume'), { keepMessages: 2 });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      cutAt: s.turns[2].messageIds[0],
      droppedCheckpoints: ['a-second', 'b-first'],
    });
    const added = (await c.events(s.id)).slice(before.length);
    expect(added.map((e) => [e.type, e.data.label ?? null])).toEqual([
      ['CheckpointDropped', 'a-second'],
      ['CheckpointDropped', 'b-first'],
      ['RunResumed', null],
    ]);
    expect(added[0].data).toEqual({
      label: 'a-second',
      messageId: s.turns[1].tip,
      reason: 'trimmed_by_resume',
    });
    expect(added[2].data).toMatchObject({
      cutAt: s.turns[2].messageIds[0],
      tip: s.turns[2].tip,
      keepMessages: 2,
      droppedCheckpoints: ['a-second', 'b-first'],
    });
    expect((await c.get(c.conv(s.id, '/checkpoints'))).body.items).toEqual([
      {
        label: 'a-second',
        messageId: s.turns[1].tip,
        status: 'dropped',
        reason: 'trimmed_by_resume',
      },
      {
        label: 'b-first',
        messageId: s.turns[0].tip,
        status: 'dropped',
        reason: 'trimmed_by_resume',
      },
      { label: 'c-last', messageId: s.turns[2].tip, status: 'active' },
    ]);
    // Dropped once: a second resume with the same cut drops nothing again, and (changing
    // nothing) appends nothing.
    const again = await c.post(c.conv(s.id, '/resume'), { keepMessages: 2 });
    expect(again.body.droppedCheckpoints).toEqual([]);
    const last = (await c.events(s.id)).slice(before.length + 3);
    expect(last.map((e) => e.type)).toEqual([]);
  });

  it('trims nothing away: every message and the tree are as before', async () => {
    const s = await conversation();
    const tree = await c.tree(s.id);
    const branch = await c.branch(s.id);
    await c.post(c.conv(s.id, '/resume'), { keepMessages: 1 });
    expect((await c.tree(s.id)).nodes).toEqual(tree.nodes);
    expect(await c.branch(s.id)).toEqual(branch);
  });

  it('validates its body and refuses an empty conversation', async () => {
    const s = await conversation();
    for (const body of [{}, { keepMessages: 0 }, { keepTokens: -1 }, { keepMessages: 1.5 }]) {
      const r = await c.post(c.conv(s.id, '/resume'), body);
      expect({ body, status: r.status, code: r.body.code }).toEqual({
        body,
        status: 400,
        code: 'validation_failed',
      });
    }
    const empty = await c.start();
    const r = await c.post(c.conv(empty, '/resume'), { keepMessages: 3 });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe('invalid_resume');
    const ghost = await c.post(c.conv('ghost', '/resume'), { keepMessages: 3 });
    expect(ghost.status).toBe(404);
    expect(ghost.body.code).toBe('conversation_not_found');
  });
});
