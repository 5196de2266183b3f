import { clientFor, type Client, exchange, toolTurn } from './support/api';
import { type Harness, startHarness } from './support/harness';

describe('checkpoints and rewind', () => {
  let h: Harness;
  let c: Client;
  beforeAll(async () => {
    h = await startHarness();
    c = clientFor(h, (await h.createTenant('cp')).apiKey);
  });
  afterAll(async () => {
    await h.destroy();
  });

  const conversation = async () => {
    const id = await c.start();
    const t1 = await c.turn(id, null, exchange('1'));
    const t2 = await c.turn(id, t1.tip, toolTurn('2'));
    const t3 = await c.turn(id, t2.tip, exchange('3'));
    return { id, t1, t2, t3 };
  };

  describe('POST .../checkpoints', () => {
    it('sets a label at the tip by default, or at a given turn end', async () => {
      const s = await conversation();
      const a = await c.post(c.conv(s.id, '/checkpoints'), { label: 'here' });
      expect(a.status).toBe(201);
      expect(a.body).toMatchObject({ label: 'here', messageId: s.t3.tip, status: 'active' });
      const b = await c.post(c.conv(s.id, '/checkpoints'), {
        label: 'v1.0:a_b-c',
        messageId: s.t1.tip,
      });
      expect(b.status).toBe(201);
      expect(b.body).toMatchObject({ messageId: s.t1.tip, status: 'active' });
      const list = await c.get(c.conv(s.id, '/checkpoints'));
      expect(list.status).toBe(200);
      expect(list.body.items).toEqual([
        { label: 'here', messageId: s.t3.tip, status: 'active' },
        { label: 'v1.0:a_b-c', messageId: s.t1.tip, status: 'active' },
      ]);
      // Labels travel in the rewind URL, dots and colons included.
      const r = await c.post(c.conv(s.id, '/checkpoints/v1.0:a_b-c/rewind'), {});
      expect(r.status).toBe(200);
      expect(r.body.tip).toBe(s.t1.tip);
      const events = await c.events(s.id);
      expect(events.filter((e) => e.type === 'CheckpointSet').map((e) => e.data)).toEqual([
        { label: 'here', messageId: s.t3.tip },
        { label: 'v1.0:a_b-c', messageId: s.t1.tip },
      ]);
    });

    it('only at a turn boundary: 422 not_a_turn_boundary mid-turn, nothing appended', async () => {
      const s = await conversation();
      const before = await c.events(s.id);
      for (const mid of [s.t1.messageIds[0], ...s.t2.messageIds.slice(0, 3)]) {
        const r = await c.post(c.conv(s.id, '/checkpoints'), { label: 'x', messageId: mid });
        expect({ mid, status: r.status, code: r.body.code }).toEqual({
          mid,
          status: 422,
          code: 'not_a_turn_boundary',
        });
      }
      // A tip moved mid-turn does not make the default target a boundary.
      await c.moveTip(s.id, s.t2.messageIds[1]);
      const atTip = await c.post(c.conv(s.id, '/checkpoints'), { label: 'x' });
      expect(atTip.status).toBe(422);
      expect(atTip.body.code).toBe('not_a_turn_boundary');
      const events = await c.events(s.id);
      expect(events.slice(0, before.length)).toEqual(before);
      expect(events.slice(before.length).map((e) => e.type)).toEqual(['TipMoved']);
    });

    it('refuses unknown targets, bad labels and a live label at another message', async () => {
      const s = await conversation();
      const unknown = await c.post(c.conv(s.id, '/checkpoints'), { label: 'x', messageId: 'nope' });
      expect(unknown.status).toBe(404);
      expect(unknown.body.code).toBe('message_not_found');
      const bad = await c.post(c.conv(s.id, '/checkpoints'), { label: 'has/slash' });
      expect(bad.status).toBe(400);
      expect(bad.body.errors[0].path).toBe('body.label');
      await c.checkpoint(s.id, 'x', s.t1.tip);
      const same = await c.post(c.conv(s.id, '/checkpoints'), { label: 'x', messageId: s.t1.tip });
      expect(same.status).toBe(201);
      const other = await c.post(c.conv(s.id, '/checkpoints'), { label: 'x', messageId: s.t3.tip });
      expect(other.status).toBe(409);
      expect(other.body.code).toBe('checkpoint_exists');
      const replaced = await c.post(c.conv(s.id, '/checkpoints'), {
        label: 'x',
        messageId: s.t3.tip,
        replace: true,
      });
      expect(replaced.status).toBe(201);
      expect((await c.get(c.conv(s.id, '/checkpoints'))).body.items).toEqual([
        { label: 'x', messageId: s.t3.tip, status: 'active' },
      ]);
      const empty = await c.start();
      const none = await c.post(c.conv(empty, '/checkpoints'), { label: 'x' });
      expect(none.status).toBe(404);
    });
  });

  describe('POST .../checkpoints/{label}/rewind', () => {
    it('lands exactly on the target and records the digest', async () => {
      const s = await conversation();
      await c.checkpoint(s.id, 'before-tools', s.t1.tip);
      const t4 = await c.turn(s.id, s.t3.tip, exchange('4'));
      const before = await c.conversation(s.id);
      const r = await c.post(c.conv(s.id, '/checkpoints/before-tools/rewind'), {
        digest: 'explored tools; they did not help',
      });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ tip: s.t1.tip, revision: before.revision + 2 });
      expect((await c.conversation(s.id)).tip).toBe(s.t1.tip);
      expect(await c.branchIds(s.id)).toEqual(s.t1.messageIds);
      const events = (await c.events(s.id)).slice(-2);
      expect(events.map((e) => [e.type, e.data])).toEqual([
        [
          'CheckpointRewound',
          {
            label: 'before-tools',
            messageId: s.t1.tip,
            from: t4.tip,
            digest: 'explored tools; they did not help',
          },
        ],
        ['TipMoved', { from: t4.tip, to: s.t1.tip, reason: 'rewind' }],
      ]);
      const cp = { label: 'before-tools', messageId: s.t1.tip, status: 'rewound' };
      const digest = 'explored tools; they did not help';
      expect((await c.get(c.conv(s.id, '/checkpoints'))).body.items).toEqual([{ ...cp, digest }]);
      expect((await c.tree(s.id)).checkpoints).toEqual([{ ...cp, digest }]);
      // The digest shows in the active branch, on the message the branch resumed from.
      const branch = (await c.branch(s.id)) as { id: string; digests?: unknown }[];
      expect(branch[branch.length - 1].digests).toEqual([
        { label: 'before-tools', digest, revision: before.revision + 1 },
      ]);
      expect(branch.slice(0, -1).every((m) => m.digests === undefined)).toBe(true);
      // Nothing was hidden: the explored path is still in the tree.
      expect((await c.tree(s.id)).nodes).toHaveLength(10);
      // A rewound label can be rewound to again.
      await c.moveTip(s.id, t4.tip);
      const again = await c.post(c.conv(s.id, '/checkpoints/before-tools/rewind'), {});
      expect(again.status).toBe(200);
      expect(again.body.tip).toBe(s.t1.tip);
    });

    it('refuses an unknown label (404) and a stale expectedTip (409) without appending', async () => {
      const s = await conversation();
      await c.checkpoint(s.id, 'a', s.t1.tip);
      const before = await c.events(s.id);
      const unknown = await c.post(c.conv(s.id, '/checkpoints/nope/rewind'), {});
      expect(unknown.status).toBe(404);
      expect(unknown.body.code).toBe('checkpoint_not_found');
      const stale = await c.post(c.conv(s.id, '/checkpoints/a/rewind'), {
        expectedTip: s.t1.tip,
      });
      expect(stale.status).toBe(409);
      expect(stale.body.code).toBe('stale_tip');
      expect(await c.events(s.id)).toEqual(before);
    });

    it('409 checkpoint_dropped after a resume trimmed the target; the tip stays put', async () => {
      const s = await conversation();
      await c.checkpoint(s.id, 'early', s.t1.tip);
      await c.checkpoint(s.id, 'late', s.t3.tip);
      const resume = await c.post(c.conv(s.id, '/resume'), { keepMessages: 2 });
      expect(resume.status).toBe(200);
      expect(resume.body.droppedCheckpoints).toEqual(['early']);
      const before = await c.events(s.id);
      const tip = (await c.conversation(s.id)).tip;
      const r = await c.post(c.conv(s.id, '/checkpoints/early/rewind'), { digest: 'x' });
      expect(r.status).toBe(409);
      expect(r.body).toMatchObject({
        code: 'checkpoint_dropped',
        label: 'early',
        messageId: s.t1.tip,
        reason: 'trimmed_by_resume',
      });
      expect(await c.events(s.id)).toEqual(before);
      expect((await c.conversation(s.id)).tip).toBe(tip);
      // Still dropped after a restart; the surviving label still lands on its target.
      await h.restart();
      const again = await c.post(c.conv(s.id, '/checkpoints/early/rewind'), {});
      expect(again.status).toBe(409);
      expect(again.body.code).toBe('checkpoint_dropped');
      const late = await c.post(c.conv(s.id, '/checkpoints/late/rewind'), {});
      expect(late.status).toBe(200);
      expect(late.body.tip).toBe(s.t3.tip);
    });

    it('checkpoints survive a restart and still land where they were set', async () => {
      const s = await conversation();
      await c.checkpoint(s.id, 'one', s.t1.tip);
      await c.checkpoint(s.id, 'two', s.t2.tip);
      const listed = (await c.get(c.conv(s.id, '/checkpoints'))).body.items;
      await c.turn(s.id, s.t3.tip, exchange('4'));
      await h.restart();
      expect((await c.get(c.conv(s.id, '/checkpoints'))).body.items).toEqual(listed);
      const r1 = await c.post(c.conv(s.id, '/checkpoints/two/rewind'), { digest: 'd2' });
      expect(r1.body.tip).toBe(s.t2.tip);
      await h.restart();
      const r2 = await c.post(c.conv(s.id, '/checkpoints/one/rewind'), { digest: 'd1' });
      expect(r2.status).toBe(200);
      expect(r2.body.tip).toBe(s.t1.tip);
      expect(await c.branchIds(s.id)).toEqual(s.t1.messageIds);
      expect((await c.get(c.conv(s.id, '/checkpoints'))).body.items).toEqual([
        { label: 'one', messageId: s.t1.tip, status: 'rewound', digest: 'd1' },
        { label: 'two', messageId: s.t2.tip, status: 'rewound', digest: 'd2' },
      ]);
    });

    it('answers 404 conversation_not_found for an unknown conversation', async () => {
      for (const r of [
        await c.post(c.conv('ghost', '/checkpoints'), { label: 'x' }),
        await c.get(c.conv('ghost', '/checkpoints')),
        await c.post(c.conv('ghost', '/checkpoints/x/rewind'), {}),
      ]) {
        expect(r.status).toBe(404);
        expect(r.body.code).toBe('conversation_not_found');
      }
    });
  });
});
