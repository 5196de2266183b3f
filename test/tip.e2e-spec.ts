import { clientFor, type Client, exchange, toolTurn } from './support/api';
import { type Harness, startHarness } from './support/harness';

describe('PUT /v1/conversations/{id}/tip (branching)', () => {
  let h: Harness;
  let c: Client;
  let id: string;
  let t1: { messageIds: string[]; tip: string };
  let t2: { messageIds: string[]; tip: string };
  let t3: { messageIds: string[]; tip: string };
  beforeAll(async () => {
    h = await startHarness();
    c = clientFor(h, (await h.createTenant('tip')).apiKey);
    id = await c.start({ title: 'branches' });
    t1 = await c.turn(id, null, exchange('1'));
    t2 = await c.turn(id, t1.tip, toolTurn('2'));
    t3 = await c.turn(id, t1.tip, exchange('3'));
  });
  afterAll(async () => {
    await h.destroy();
  });

  it('appends exactly one TipMoved and nothing else; the tree is unchanged', async () => {
    const before = await c.conversation(id);
    const treeBefore = await c.tree(id);
    const eventsBefore = await c.events(id);
    expect(before.tip).toBe(t3.tip);

    const r = await c.put(c.conv(id, '/tip'), { messageId: t2.tip });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ tip: t2.tip, revision: before.revision + 1 });

    const eventsAfter = await c.events(id);
    expect(eventsAfter.slice(0, eventsBefore.length)).toEqual(eventsBefore);
    const added = eventsAfter.slice(eventsBefore.length);
    expect(added).toHaveLength(1);
    expect(added[0]).toMatchObject({
      revision: before.revision + 1,
      type: 'TipMoved',
      data: { from: t3.tip, to: t2.tip, reason: 'branch' },
    });

    const treeAfter = await c.tree(id);
    expect(treeAfter.nodes).toEqual(treeBefore.nodes);
    expect(treeAfter.branchPoints).toEqual(treeBefore.branchPoints);
    expect(treeAfter.checkpoints).toEqual(treeBefore.checkpoints);
    expect(treeAfter.tip).toBe(t2.tip);
    expect(await c.conversation(id)).toMatchObject({
      tip: t2.tip,
      revision: before.revision + 1,
      counts: before.counts,
    });
    expect(await c.branchIds(id)).toEqual([...t1.messageIds, ...t2.messageIds]);
  });

  it('moves back and forth between branches, each move one event', async () => {
    const start = (await c.events(id)).length;
    await c.moveTip(id, t3.tip);
    expect(await c.branchIds(id)).toEqual([...t1.messageIds, ...t3.messageIds]);
    await c.moveTip(id, t1.tip);
    expect(await c.branchIds(id)).toEqual(t1.messageIds);
    await c.moveTip(id, t2.tip);
    expect(await c.branchIds(id)).toEqual([...t1.messageIds, ...t2.messageIds]);
    const events = await c.events(id);
    expect(events.slice(start).map((e) => e.type)).toEqual(['TipMoved', 'TipMoved', 'TipMoved']);
  });

  it('may point at any message, even mid-turn; the branch then ends there', async () => {
    const mid = t2.messageIds[2]; // the tool_result message
    await c.moveTip(id, mid);
    expect(await c.branchIds(id)).toEqual([...t1.messageIds, ...t2.messageIds.slice(0, 3)]);
    // A turn cannot hang there, so chaining from the tip is refused.
    const r = await c.post(c.conv(id, '/turns'), { messages: exchange('x') });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe('not_a_turn_boundary');
    await c.moveTip(id, t3.tip);
  });

  it('a stale expectedTip is 409 stale_tip; an unknown message is 404; neither appends', async () => {
    const before = await c.events(id);
    const tip = (await c.conversation(id)).tip;
    const stale = await c.put(c.conv(id, '/tip'), { messageId: t1.tip, expectedTip: t2.tip });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ code: 'stale_tip', tip, expectedTip: t2.tip });
    const unknown = await c.put(c.conv(id, '/tip'), { messageId: 'no-such-message' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('message_not_found');
    const bad = await c.put(c.conv(id, '/tip'), { messageId: '' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].path).toBe('body.messageId');
    expect(await c.events(id)).toEqual(before);
    const ok = await c.put(c.conv(id, '/tip'), { messageId: t1.tip, expectedTip: tip });
    expect(ok.status).toBe(200);
  });

  it('a moved branch survives a restart', async () => {
    await c.moveTip(id, t2.tip);
    await h.restart();
    expect((await c.conversation(id)).tip).toBe(t2.tip);
    expect(await c.branchIds(id)).toEqual([...t1.messageIds, ...t2.messageIds]);
    // The write side agrees: chaining from the tip hangs on t2.
    const t4 = await c.turn(id, undefined, exchange('4'));
    expect((await c.branch(id)).map((m) => m.id)).toEqual([
      ...t1.messageIds,
      ...t2.messageIds,
      ...t4.messageIds,
    ]);
  });

  it('answers 404 conversation_not_found for an unknown conversation', async () => {
    const r = await c.put(c.conv('ghost', '/tip'), { messageId: t1.tip });
    expect(r.status).toBe(404);
    expect(r.body.code).toBe('conversation_not_found');
  });
});
