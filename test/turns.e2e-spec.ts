import {
  assistant,
  clientFor,
  type Client,
  exchange,
  msg,
  text,
  toolResult,
  toolTurn,
  toolUse,
  user,
} from './support/api';
import { type Harness, startHarness } from './support/harness';

describe('POST /v1/conversations/{id}/turns', () => {
  let h: Harness;
  let c: Client;
  beforeAll(async () => {
    h = await startHarness();
    c = clientFor(h, (await h.createTenant('turns')).apiKey);
  });
  afterAll(async () => {
    await h.destroy();
  });

  it('commits a whole tool-loop turn in one append: N MessageAppended then one TurnCommitted', async () => {
    const id = await c.start();
    const r = await c.post(c.conv(id, '/turns'), { parentId: null, messages: toolTurn('a', 2) });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      turnId: expect.any(String),
      messageIds: expect.any(Array),
      tip: r.body.messageIds[3],
      revision: 5,
      replayed: false,
    });
    const events = await c.events(id);
    expect(events.map((e) => e.type)).toEqual([
      'ConversationStarted',
      'MessageAppended',
      'MessageAppended',
      'MessageAppended',
      'MessageAppended',
      'TurnCommitted',
    ]);
    const turnEvents = events.slice(1);
    // One append: consecutive revisions and one causation id for the whole turn.
    const revisions = turnEvents.map((e) => e.revision);
    expect(revisions).toEqual(revisions.map((_, i) => revisions[0] + i));
    expect(new Set(turnEvents.map((e) => e.metadata.causationId)).size).toBe(1);
    expect(turnEvents[4].data).toMatchObject({
      turnId: r.body.turnId,
      parentId: null,
      messageIds: r.body.messageIds,
      tipBefore: null,
      tip: r.body.tip,
    });
    const branch = await c.branch(id);
    expect(branch.map((m) => m.id)).toEqual(r.body.messageIds);
    expect(branch.map((m) => m.parentId)).toEqual([null, ...r.body.messageIds.slice(0, 3)]);
    expect(branch.every((m) => m.turnId === r.body.turnId)).toBe(true);
  });

  it('chains from the tip when parentId is omitted, and takes caller message ids', async () => {
    const id = await c.start();
    const t1 = await c.turn(id, null, [user('q', 'u-1'), assistant('a', 'a-1')]);
    expect(t1.messageIds).toEqual(['u-1', 'a-1']);
    const t2 = await c.turn(id, undefined, exchange('2'));
    expect((await c.branch(id)).map((m) => m.parentId)).toEqual([
      null,
      'u-1',
      'a-1',
      t2.messageIds[0],
    ]);
    // Ids already used in the conversation are refused.
    const dup = await c.post(c.conv(id, '/turns'), {
      messages: [user('again', 'u-1'), assistant('x')],
    });
    expect(dup.status).toBe(422);
    expect(dup.body.violations).toEqual([
      expect.objectContaining({ path: 'body.messages[0].id', code: 'duplicate_message_id' }),
    ]);
  });

  it('allows a system message only at the root', async () => {
    const id = await c.start();
    const t = await c.turn(id, null, [msg('system', [text('be brief')]), ...exchange('s')]);
    expect(t.messageIds).toHaveLength(3);
    const r = await c.post(c.conv(id, '/turns'), {
      parentId: t.tip,
      messages: [msg('system', [text('late')]), ...exchange('x')],
    });
    expect(r.status).toBe(422);
    expect(r.body.violations[0]).toMatchObject({
      path: 'body.messages[0].role',
      code: 'role_order',
    });
  });

  describe('turnId idempotency', () => {
    it('the same turn sent twice is one turn: same result, replayed, nothing appended', async () => {
      const id = await c.start();
      const body = { turnId: 'turn-1', parentId: null, messages: toolTurn('i') };
      const first = await c.post(c.conv(id, '/turns'), body);
      expect(first.status).toBe(201);
      expect(first.body.replayed).toBe(false);
      const eventsBefore = await c.events(id);
      const second = await c.post(c.conv(id, '/turns'), body);
      expect(second.status).toBe(200);
      expect(second.body).toEqual({ ...first.body, replayed: true });
      expect(await c.events(id)).toEqual(eventsBefore);
      expect(await c.conversation(id)).toMatchObject({ counts: { messages: 4, turns: 1 } });

      // Still recognised after the tip moved on and after a restart (the hash is in the log).
      await c.turn(id, first.body.tip, exchange('later'));
      await h.restart();
      const third = await c.post(c.conv(id, '/turns'), body);
      expect(third.status).toBe(200);
      expect(third.body).toEqual({ ...first.body, replayed: true });
      expect(await c.conversation(id)).toMatchObject({ counts: { turns: 2 } });
    });

    it('a retry whose expectedTip went stale because of its own commit still replays', async () => {
      const id = await c.start();
      const t1 = await c.turn(id, null, exchange('1'));
      const body = {
        turnId: 'guarded',
        parentId: t1.tip,
        expectedTip: t1.tip,
        messages: exchange('2'),
      };
      const first = await c.post(c.conv(id, '/turns'), body);
      expect(first.status).toBe(201);
      const again = await c.post(c.conv(id, '/turns'), body);
      expect(again.status).toBe(200);
      expect(again.body).toEqual({ ...first.body, replayed: true });
    });

    it('the same turn sent concurrently is committed once; the others replay it', async () => {
      const id = await c.start();
      const body = { turnId: 'racing', parentId: null, messages: toolTurn('r') };
      const rs = await Promise.all([1, 2, 3, 4].map(() => c.post(c.conv(id, '/turns'), body)));
      expect(rs.map((r) => r.status).sort()).toEqual([200, 200, 200, 201]);
      const first = rs.find((r) => r.status === 201)?.body;
      for (const r of rs) expect(r.body).toEqual({ ...first, replayed: r.status === 200 });
      expect(await c.conversation(id)).toMatchObject({ counts: { turns: 1, messages: 4 } });
    });

    it('a retried turn without parentId (chained from the tip) is replayed, not a conflict', async () => {
      const id = await c.start();
      const body = { turnId: 'from-tip', messages: exchange('1') };
      const first = await c.post(c.conv(id, '/turns'), body);
      expect(first.status).toBe(201);
      const second = await c.post(c.conv(id, '/turns'), body);
      expect(second.status).toBe(200);
      expect(second.body).toEqual({ ...first.body, replayed: true });
      const next = { turnId: 'from-tip-2', messages: toolTurn('2') };
      const third = await c.post(c.conv(id, '/turns'), next);
      expect(third.status).toBe(201);
      expect((await c.post(c.conv(id, '/turns'), next)).body).toEqual({
        ...third.body,
        replayed: true,
      });
      // The same turnId with other messages is still a conflict.
      const other = await c.post(c.conv(id, '/turns'), {
        turnId: 'from-tip',
        messages: exchange('x'),
      });
      expect(other.status).toBe(409);
      expect(other.body.code).toBe('turn_id_conflict');
      expect(await c.conversation(id)).toMatchObject({ counts: { turns: 2, messages: 6 } });
    });

    it('a different turn under a used turnId is 409 turn_id_conflict and appends nothing', async () => {
      const id = await c.start();
      const t = await c.turn(id, null, exchange('1'), { turnId: 'same' });
      const before = await c.events(id);
      const differentContent = await c.post(c.conv(id, '/turns'), {
        turnId: 'same',
        parentId: null,
        messages: exchange('other'),
      });
      expect(differentContent.status).toBe(409);
      expect(differentContent.body.code).toBe('turn_id_conflict');
      const differentParent = await c.post(c.conv(id, '/turns'), {
        turnId: 'same',
        parentId: t.tip,
        messages: exchange('1'),
      });
      expect(differentParent.status).toBe(409);
      expect(differentParent.body.code).toBe('turn_id_conflict');
      expect(await c.events(id)).toEqual(before);
    });
  });

  describe('optimistic concurrency', () => {
    it('a stale expectedTip is 409 stale_tip and appends nothing; the right one commits', async () => {
      const id = await c.start();
      const t1 = await c.turn(id, null, exchange('1'));
      const t2 = await c.turn(id, t1.tip, exchange('2'));
      const before = await c.events(id);
      const stale = await c.post(c.conv(id, '/turns'), {
        parentId: t2.tip,
        expectedTip: t1.tip,
        messages: exchange('3'),
      });
      expect(stale.status).toBe(409);
      expect(stale.body).toMatchObject({ code: 'stale_tip', expectedTip: t1.tip, tip: t2.tip });
      const staleNull = await c.post(c.conv(id, '/turns'), {
        parentId: t2.tip,
        expectedTip: null,
        messages: exchange('3'),
      });
      expect(staleNull.status).toBe(409);
      expect(staleNull.body.code).toBe('stale_tip');
      expect(await c.events(id)).toEqual(before);
      const ok = await c.post(c.conv(id, '/turns'), {
        parentId: t2.tip,
        expectedTip: t2.tip,
        messages: exchange('3'),
      });
      expect(ok.status).toBe(201);
    });

    it('expectedTip null commits the first turn of an empty conversation', async () => {
      const id = await c.start();
      const r = await c.post(c.conv(id, '/turns'), {
        parentId: null,
        expectedTip: null,
        messages: exchange('1'),
      });
      expect(r.status).toBe(201);
    });

    it('two concurrent commits expecting the same tip: exactly one wins', async () => {
      const id = await c.start();
      const t1 = await c.turn(id, null, exchange('1'));
      const send = (label: string) =>
        c.post(c.conv(id, '/turns'), {
          parentId: t1.tip,
          expectedTip: t1.tip,
          messages: exchange(label),
        });
      const results = await Promise.all([send('x'), send('y'), send('z')]);
      expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409]);
      expect(await c.conversation(id)).toMatchObject({ counts: { turns: 2, messages: 4 } });
    });
  });

  describe('turn rules (422 invalid_turn with violation paths)', () => {
    let id: string;
    let tip: string;
    beforeAll(async () => {
      id = await c.start();
      tip = (await c.turn(id, null, exchange('base'))).tip;
    });

    const rejects = async (messages: unknown[], violations: { path: string; code: string }[]) => {
      const before = await c.events(id);
      const r = await c.post(c.conv(id, '/turns'), { parentId: tip, messages });
      expect(r.status).toBe(422);
      expect(r.headers.get('content-type')).toContain('application/problem+json');
      expect(r.body.code).toBe('invalid_turn');
      expect(
        r.body.violations.map((v: { path: string; code: string }) => ({
          path: v.path,
          code: v.code,
        })),
      ).toEqual(violations);
      expect(await c.events(id)).toEqual(before);
    };

    it('an unanswered tool_use (turn ends on the call)', () =>
      rejects(
        [user('go'), msg('assistant', [text('calling'), toolUse('t1')])],
        [{ path: 'body.messages[1].content[1]', code: 'unanswered_tool_use' }],
      ));

    it('a tool_use answered only two messages later', () =>
      rejects(
        [
          user('go'),
          msg('assistant', [toolUse('t1'), toolUse('t2')]),
          msg('user', [toolResult('t1')]),
          msg('assistant', [toolUse('t3')]),
          msg('user', [toolResult('t3'), toolResult('t2')]),
          assistant('done'),
        ],
        [
          { path: 'body.messages[1].content[1]', code: 'unanswered_tool_use' },
          { path: 'body.messages[4].content[1]', code: 'orphan_tool_result' },
        ],
      ));

    it('an orphan tool_result (no call before it)', () =>
      rejects(
        [msg('user', [toolResult('ghost')]), assistant('hm')],
        [{ path: 'body.messages[0].content[0]', code: 'orphan_tool_result' }],
      ));

    it('an orphan tool_result answering a call of another turn', async () => {
      // A tool_use of an earlier turn cannot be answered later: it was never left unanswered.
      await rejects(
        [
          user('x'),
          msg('assistant', [toolUse('k1')]),
          msg('user', [toolResult('base')]),
          assistant('y'),
        ],
        [
          { path: 'body.messages[1].content[0]', code: 'unanswered_tool_use' },
          { path: 'body.messages[2].content[0]', code: 'orphan_tool_result' },
        ],
      );
    });

    it('roles out of order, and a turn not ending with the assistant', () =>
      rejects(
        [user('a'), user('b')],
        [
          { path: 'body.messages[1].role', code: 'role_order' },
          { path: 'body.messages[1]', code: 'must_end_with_assistant' },
        ],
      ));

    it('two exchanges in one turn', () =>
      rejects(
        [...exchange('1'), ...exchange('2')],
        [{ path: 'body.messages[1]', code: 'multiple_turns' }],
      ));

    it('an empty message list is a validation error with its path', async () => {
      const r = await c.post(c.conv(id, '/turns'), { parentId: tip, messages: [] });
      expect(r.status).toBe(400);
      expect(r.body.errors[0].path).toBe('body.messages');
    });
  });

  describe('where a turn hangs', () => {
    it('parentId as an earlier message starts a new branch; the old one stays', async () => {
      const id = await c.start();
      const t1 = await c.turn(id, null, exchange('1'));
      const t2 = await c.turn(id, t1.tip, exchange('2'));
      const t3 = await c.turn(id, t1.tip, [user('question 2, edited'), assistant('other answer')]);
      expect(t3.tip).toBe(t3.messageIds[1]);
      expect(await c.branchIds(id)).toEqual([...t1.messageIds, ...t3.messageIds]);
      const tree = await c.tree(id);
      expect(tree.branchPoints).toEqual([t1.tip]);
      expect(tree.nodes.find((n) => n.id === t1.tip)?.children).toEqual([
        t2.messageIds[0],
        t3.messageIds[0],
      ]);
      // The path left behind is still there, untouched.
      const old = await c.get(c.conv(id, `/messages/${t2.tip}`));
      expect(old.status).toBe(200);
      expect(old.body.content).toEqual([text('answer 2')]);
      // And a new turn can hang on it.
      const t4 = await c.turn(id, t2.tip, exchange('4'));
      expect(await c.branchIds(id)).toEqual([...t1.messageIds, ...t2.messageIds, ...t4.messageIds]);
    });

    it('refuses a null parent once the conversation has a root', async () => {
      const id = await c.start();
      await c.turn(id, null, exchange('1'));
      const r = await c.post(c.conv(id, '/turns'), { parentId: null, messages: exchange('2') });
      expect(r.status).toBe(422);
      expect(r.body.violations[0]).toMatchObject({ path: 'body.parentId', code: 'root_exists' });
    });

    it('refuses an unknown parent (404 parent_not_found)', async () => {
      const id = await c.start();
      await c.turn(id, null, exchange('1'));
      const r = await c.post(c.conv(id, '/turns'), { parentId: 'nope', messages: exchange('2') });
      expect(r.status).toBe(404);
      expect(r.body.code).toBe('parent_not_found');
    });

    it('refuses a parent in the middle of a turn (422 not_a_turn_boundary)', async () => {
      const id = await c.start();
      const t = await c.turn(id, null, toolTurn('1'));
      for (const mid of t.messageIds.slice(0, 3)) {
        const r = await c.post(c.conv(id, '/turns'), { parentId: mid, messages: exchange('2') });
        expect({ mid, status: r.status, code: r.body.code }).toEqual({
          mid,
          status: 422,
          code: 'not_a_turn_boundary',
        });
      }
    });

    it('answers 404 conversation_not_found for a conversation that was never started', async () => {
      const r = await c.post(c.conv('ghost', '/turns'), {
        parentId: null,
        messages: exchange('1'),
      });
      expect(r.status).toBe(404);
      expect(r.body.code).toBe('conversation_not_found');
    });
  });
});
