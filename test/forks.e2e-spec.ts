import { clientFor, type Client, exchange, toolTurn } from './support/api';
import { type Harness, startHarness } from './support/harness';

type Msg = Record<string, unknown> & { id: string; parentId: string | null };

describe('POST /v1/conversations/{id}/forks', () => {
  let h: Harness;
  let c: Client;
  beforeAll(async () => {
    h = await startHarness();
    c = clientFor(h, (await h.createTenant('forks')).apiKey);
  });
  afterAll(async () => {
    await h.destroy();
  });

  /** Source: t1 → t2 (off the forked path), t1 → t3 (the tip); checkpoints on and off the path. */
  const source = async () => {
    const id = await c.start({ title: 'source', metadata: { k: 1 } });
    const t1 = await c.turn(id, null, toolTurn('1'));
    const t2 = await c.turn(id, t1.tip, exchange('2'));
    const t3 = await c.turn(id, t1.tip, exchange('3'));
    await c.checkpoint(id, 'on-path', t1.tip);
    await c.checkpoint(id, 'off-path', t2.tip);
    await c.checkpoint(id, 'at-end', t3.tip);
    return { id, t1, t2, t3 };
  };

  it('copies the path to the tip with fresh ids and returns the id map', async () => {
    const s = await source();
    const sourceBranch = (await c.branch(s.id)) as Msg[];
    const sourceTree = await c.tree(s.id);
    const r = await c.post(c.conv(s.id, '/forks'), {});
    expect(r.status).toBe(201);
    const { id: forkId, idMap } = r.body as { id: string; idMap: Record<string, string> };
    expect(forkId).not.toBe(s.id);
    const pathIds = [...s.t1.messageIds, ...s.t3.messageIds];
    expect(Object.keys(idMap).sort()).toEqual([...pathIds].sort());
    const newIds = Object.values(idMap);
    expect(new Set(newIds).size).toBe(newIds.length);
    // The copy holds whole turns, and says how many.
    expect((await c.conversation(forkId)).counts).toEqual({ messages: pathIds.length, turns: 2 });
    const allSourceIds = new Set(sourceTree.nodes.map((n) => n.id));
    for (const n of newIds) expect(allSourceIds.has(n)).toBe(false);

    const forkBranch = (await c.branch(forkId)) as Msg[];
    expect(forkBranch.map((m) => m.id)).toEqual(pathIds.map((i) => idMap[i]));
    forkBranch.forEach((m, i) => {
      const src = sourceBranch[i];
      expect(m.parentId).toBe(src.parentId === null ? null : idMap[src.parentId]);
      const { id: _a, parentId: _b, ...copy } = m;
      const { id: _c, parentId: _d, ...orig } = src;
      expect(copy).toEqual(orig);
    });
    // Only the path is copied: the other branch is not in the fork.
    const forkTree = await c.tree(forkId);
    expect(forkTree.nodes.map((n) => n.id).sort()).toEqual([...newIds].sort());
    expect(forkTree.branchPoints).toEqual([]);
    expect(forkTree.tip).toBe(idMap[s.t3.tip]);
  });

  it('records lineage on both sides', async () => {
    const s = await source();
    const a = await c.post(c.conv(s.id, '/forks'), { title: 'fork a' });
    const b = await c.post(c.conv(s.id, '/forks'), { messageId: s.t1.tip });
    expect([a.status, b.status]).toEqual([201, 201]);
    const fa = await c.conversation(a.body.id);
    expect(fa).toMatchObject({
      id: a.body.id,
      title: 'fork a',
      tip: a.body.idMap[s.t3.tip],
      lineage: { forkedFrom: { conversationId: s.id, messageId: s.t3.tip }, forks: [] },
    });
    const fb = await c.conversation(b.body.id);
    expect(fb).toMatchObject({
      title: 'source',
      lineage: { forkedFrom: { conversationId: s.id, messageId: s.t1.tip } },
    });
    const src = await c.conversation(s.id);
    expect(src.lineage).toEqual({
      forkedFrom: null,
      forks: [
        { conversationId: a.body.id, messageId: s.t3.tip },
        { conversationId: b.body.id, messageId: s.t1.tip },
      ],
    });
    // The id map is recorded on both sides of the log.
    const srcEvents = await c.events(s.id);
    const forked = srcEvents.filter((e) => e.type === 'ConversationForked');
    expect(forked.map((e) => e.data)).toEqual([
      { forkConversationId: a.body.id, fromMessageId: s.t3.tip, idMap: a.body.idMap },
      { forkConversationId: b.body.id, fromMessageId: s.t1.tip, idMap: b.body.idMap },
    ]);
    const forkEvents = await c.events(a.body.id);
    expect(forkEvents[0].type).toBe('ConversationStarted');
    expect(forkEvents[1]).toMatchObject({
      type: 'ForkedFrom',
      data: { sourceConversationId: s.id, sourceMessageId: s.t3.tip, idMap: a.body.idMap },
    });
    // A fork of a fork has its own lineage.
    const grand = await c.post(c.conv(a.body.id, '/forks'), {});
    expect(grand.status).toBe(201);
    expect((await c.conversation(grand.body.id)).lineage.forkedFrom).toEqual({
      conversationId: a.body.id,
      messageId: a.body.idMap[s.t3.tip],
    });
    expect((await c.conversation(a.body.id)).lineage.forks).toEqual([
      { conversationId: grand.body.id, messageId: a.body.idMap[s.t3.tip] },
    ]);
  });

  it('later appends on either side are invisible to the other', async () => {
    const s = await source();
    const f = await c.post(c.conv(s.id, '/forks'), {});
    const forkId = f.body.id as string;
    const idMap = f.body.idMap as Record<string, string>;
    const srcTree0 = await c.tree(s.id);
    const forkTree0 = await c.tree(forkId);

    const onSource = await c.turn(s.id, s.t3.tip, exchange('source later'));
    await c.moveTip(s.id, s.t2.tip);
    expect(await c.tree(forkId)).toEqual(forkTree0);
    expect(await c.branchIds(forkId)).toEqual(
      [...s.t1.messageIds, ...s.t3.messageIds].map((i) => idMap[i]),
    );

    const onFork = await c.turn(forkId, idMap[s.t3.tip], exchange('fork later'));
    const srcTree1 = await c.tree(s.id);
    expect(srcTree1.nodes.map((n) => n.id)).toEqual([
      ...srcTree0.nodes.map((n) => n.id),
      ...onSource.messageIds,
    ]);
    for (const id of onFork.messageIds) {
      const r = await c.get(c.conv(s.id, `/messages/${id}`));
      expect(r.status).toBe(404);
    }
    for (const id of onSource.messageIds) {
      const r = await c.get(c.conv(forkId, `/messages/${id}`));
      expect(r.status).toBe(404);
    }
    // Source ids do not resolve in the fork, even those it was copied from.
    const srcIdInFork = await c.put(c.conv(forkId, '/tip'), { messageId: s.t1.tip });
    expect(srcIdInFork.status).toBe(404);
    const forkTree1 = await c.tree(forkId);
    expect(forkTree1.nodes).toHaveLength(forkTree0.nodes.length + 2);
    const srcIds = new Set(srcTree1.nodes.map((n) => n.id));
    expect(forkTree1.nodes.some((n) => srcIds.has(n.id))).toBe(false);
  });

  it('remaps checkpoints on the copied path; leaves the others out', async () => {
    const s = await source();
    const f = await c.post(c.conv(s.id, '/forks'), {});
    const idMap = f.body.idMap as Record<string, string>;
    const cps = await c.get(c.conv(f.body.id, '/checkpoints'));
    expect(cps.body.items).toEqual([
      { label: 'at-end', messageId: idMap[s.t3.tip], status: 'active' },
      { label: 'on-path', messageId: idMap[s.t1.tip], status: 'active' },
    ]);
    // A remapped checkpoint rewinds inside the fork, never into the source.
    const r = await c.post(c.conv(f.body.id, '/checkpoints/on-path/rewind'), { digest: 'd' });
    expect(r.status).toBe(200);
    expect(r.body.tip).toBe(idMap[s.t1.tip]);
    expect((await c.conversation(s.id)).tip).toBe(s.t3.tip);
    const missing = await c.post(c.conv(f.body.id, '/checkpoints/off-path/rewind'), {});
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('checkpoint_not_found');
  });

  it('refuses a fork end in the middle of a turn or unknown, and an unknown conversation', async () => {
    const s = await source();
    const before = await c.events(s.id);
    const mid = await c.post(c.conv(s.id, '/forks'), { messageId: s.t1.messageIds[1] });
    expect(mid.status).toBe(422);
    expect(mid.body.code).toBe('not_a_turn_boundary');
    const unknown = await c.post(c.conv(s.id, '/forks'), { messageId: 'nope' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('message_not_found');
    expect(await c.events(s.id)).toEqual(before);
    const ghost = await c.post(c.conv('ghost', '/forks'), {});
    expect(ghost.status).toBe(404);
    expect(ghost.body.code).toBe('conversation_not_found');
    const empty = await c.start();
    const nothing = await c.post(c.conv(empty, '/forks'), {});
    expect(nothing.status).toBe(404);
    expect(nothing.body.code).toBe('message_not_found');
  });

  it('a fork survives a restart with its lineage and copy', async () => {
    const s = await source();
    const f = await c.post(c.conv(s.id, '/forks'), {});
    const before = { tree: await c.tree(f.body.id), conv: await c.conversation(f.body.id) };
    await h.restart();
    expect(await c.tree(f.body.id)).toEqual(before.tree);
    expect(await c.conversation(f.body.id)).toEqual(before.conv);
    // The write side knows the fork too: a turn hangs on its tip.
    await c.turn(f.body.id, before.conv.tip, exchange('after restart'));
  });

  it('a fork with an id is idempotent: the same id answers the same fork, once written', async () => {
    const s = await source();
    const first = await c.post(c.conv(s.id, '/forks'), { id: 'named-fork', title: 'n' });
    expect(first.status).toBe(201);
    expect(first.body.id).toBe('named-fork');
    const events = await c.events(s.id);
    const again = await c.post(c.conv(s.id, '/forks'), { id: 'named-fork', title: 'n' });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    // Nothing written the second time, on either side.
    expect(await c.events(s.id)).toEqual(events);
    expect((await c.events('named-fork')).length).toBe(first.body.revision + 1);
    expect((await c.conversation(s.id)).lineage.forks).toHaveLength(1);
    // The same id for another message is taken.
    const other = await c.post(c.conv(s.id, '/forks'), { id: 'named-fork', messageId: s.t2.tip });
    expect(other.status).toBe(409);
    expect(other.body.code).toBe('conversation_exists');
    // Without an id, each acknowledged fork is a new one.
    const a = await c.post(c.conv(s.id, '/forks'), {});
    const b = await c.post(c.conv(s.id, '/forks'), {});
    expect(a.body.id).not.toBe(b.body.id);
  });
});
