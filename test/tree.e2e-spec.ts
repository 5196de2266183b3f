import { clientFor, type Client, exchange, toolTurn } from './support/api';
import { type Harness, startHarness } from './support/harness';

describe('GET /v1/conversations/{id}/tree', () => {
  let h: Harness;
  let c: Client;
  beforeAll(async () => {
    h = await startHarness();
    c = clientFor(h, (await h.createTenant('tree')).apiKey);
  });
  afterAll(async () => {
    await h.destroy();
  });

  it('lists every node with parent, role and children, the tip, branch points and checkpoints', async () => {
    const id = await c.start();
    const t1 = await c.turn(id, null, exchange('1'));
    const t2 = await c.turn(id, t1.tip, toolTurn('2'));
    const t3 = await c.turn(id, t1.tip, exchange('3'));
    const t4 = await c.turn(id, t1.tip, exchange('4'));
    const t5 = await c.turn(id, t2.tip, exchange('5'));
    await c.checkpoint(id, 'cp', t2.tip);
    await c.moveTip(id, t3.tip);

    // The expected tree, from what was committed.
    const turns = [
      { t: t1, parent: null },
      { t: t2, parent: t1.tip },
      { t: t3, parent: t1.tip },
      { t: t4, parent: t1.tip },
      { t: t5, parent: t2.tip },
    ];
    const roles = new Map<string, string>();
    const parent = new Map<string, string | null>();
    for (const { t, parent: p } of turns) {
      t.messageIds.forEach((m, i) => {
        parent.set(m, i === 0 ? p : t.messageIds[i - 1]);
        roles.set(m, i % 2 === 0 ? 'user' : 'assistant');
      });
    }
    const childrenOf = (m: string) => [...parent].filter(([, p]) => p === m).map(([k]) => k);

    const r = await c.get(c.conv(id, '/tree'));
    expect(r.status).toBe(200);
    expect(r.body.tip).toBe(t3.tip);
    expect(r.body.nodes).toHaveLength(parent.size);
    const byId = new Map(r.body.nodes.map((n: { id: string }) => [n.id, n]));
    for (const [m, p] of parent) {
      expect(byId.get(m)).toEqual({
        id: m,
        parentId: p,
        role: roles.get(m),
        children: childrenOf(m),
      });
    }
    expect(byId.get(t1.tip)).toMatchObject({
      children: [t2.messageIds[0], t3.messageIds[0], t4.messageIds[0]],
    });
    expect([...r.body.branchPoints].sort()).toEqual([t1.tip].sort());
    expect(r.body.checkpoints).toEqual([{ label: 'cp', messageId: t2.tip, status: 'active' }]);

    // Branching twice at one message, and at a second message.
    const t6 = await c.turn(id, t3.tip, exchange('6'));
    const t7 = await c.turn(id, t3.tip, exchange('7'));
    const again = await c.tree(id);
    expect([...again.branchPoints].sort()).toEqual([t1.tip, t3.tip].sort());
    expect(again.nodes.find((n) => n.id === t3.tip)?.children).toEqual([
      t6.messageIds[0],
      t7.messageIds[0],
    ]);
    expect(again.tip).toBe(t7.tip);
  });

  it('an empty conversation has no nodes and no tip; an unknown one is 404', async () => {
    const id = await c.start();
    expect((await c.get(c.conv(id, '/tree'))).body).toEqual({
      tip: null,
      nodes: [],
      branchPoints: [],
      checkpoints: [],
    });
    const r = await c.get(c.conv('ghost', '/tree'));
    expect(r.status).toBe(404);
    expect(r.body.code).toBe('conversation_not_found');
  });

  it('is the same after a restart', async () => {
    const id = await c.start();
    const t1 = await c.turn(id, null, exchange('1'));
    await c.turn(id, t1.tip, exchange('2'));
    await c.turn(id, t1.tip, exchange('3'));
    const before = await c.tree(id);
    await h.restart();
    expect(await c.tree(id)).toEqual(before);
  });
});
