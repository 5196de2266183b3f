import { checkBody } from '@arbor/context';
import {
  assistant,
  clientFor,
  msg,
  text,
  toolResult,
  toolTurn,
  toolUse,
  user,
} from './support/api';
import { type Harness, startHarness } from './support/harness';

const bigResult = (i: number) => `line ${i} of tool output that nobody will reread\n`.repeat(400);

describe('compactions: list and revoke', () => {
  let h: Harness;
  let api: ReturnType<typeof clientFor>;

  const seed = async (): Promise<string> => {
    const id = await api.start({ title: 'revoke' });
    let tip: string | null = null;
    tip = (await api.turn(id, tip, [user('The task.'), assistant('Understood.')])).tip;
    for (let i = 0; i < 8; i++) {
      const call = `call_${i}`;
      tip = (
        await api.turn(id, tip, [
          user(`step ${i}`),
          msg('assistant', [text(`running ${i}`), toolUse(call, 'bash', { cmd: `ls ${i}` })]),
          msg('user', [toolResult(call, bigResult(i))]),
          assistant(`step ${i} done`),
        ])
      ).tip;
    }
    await api.turn(id, tip, toolTurn('last'));
    return id;
  };

  beforeAll(async () => {
    h = await startHarness();
    api = clientFor(h, (await h.createTenant('revoke')).apiKey);
  });
  afterAll(async () => {
    await h.destroy();
  });

  it('revokes a decision: later contexts leave it out and say so, earlier ones still reproduce', async () => {
    const conv = await seed();
    const request = { provider: 'anthropic', model: 'claude-x', budgetTokens: 12_000 };
    const first = await api.post(api.conv(conv, '/context'), request);
    expect(first.status).toBe(200);
    const decided: string[] = first.body.receipt.rungs.flatMap(
      (r: { decisionIds: string[] }) => r.decisionIds,
    );
    expect(decided.length).toBeGreaterThan(0);
    expect(JSON.stringify(first.body.body)).toContain('[elided: result of bash');

    const listed = await api.get(api.conv(conv, '/compactions'));
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((x: { decision: { id: string } }) => x.decision.id)).toEqual(
      decided,
    );
    expect(new Set(listed.body.items.map((x: { status: string }) => x.status))).toEqual(
      new Set(['in_force']),
    );

    const [target] = decided;
    const revoked = await api.post(api.conv(conv, `/compactions/${target}/revoke`), {
      reason: 'the model needs the logs again',
    });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ decisionId: target, status: 'revoked', replayed: false });
    const events = await api.get(api.conv(conv, `/events?fromRevision=${revoked.body.revision}`));
    expect(events.body.items.map((e: { type: string; data: unknown }) => [e.type, e.data])).toEqual(
      [['CompactionRevoked', { decisionId: target, reason: 'the model needs the logs again' }]],
    );
    // Again: nothing appended.
    const again = await api.post(api.conv(conv, `/compactions/${target}/revoke`), {});
    expect(again.body).toMatchObject({ replayed: true, revision: revoked.body.revision });
    const unknown = await api.post(api.conv(conv, '/compactions/no-such-decision/revoke'), {});
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('compaction_not_found');

    // A budget everything fits: the revoked elision is not applied; the receipt says the
    // cached prefix changed; the result is back in full.
    const after = await api.post(api.conv(conv, '/context'), { ...request, budgetTokens: 200_000 });
    expect(after.status).toBe(200);
    expect(after.body.receipt.revoked).toEqual({
      decisionIds: [target],
      cachedPrefixChanged: true,
    });
    expect(after.body.receipt.rungs).toEqual([]);
    expect(checkBody('anthropic', after.body.body)).toEqual([]);
    const events2 = await api.get(api.conv(conv, `/events?fromRevision=${after.body.revision}`));
    const assembled = events2.body.items.find(
      (e: { type: string }) => e.type === 'ContextAssembled',
    );
    expect(assembled.data.decisionIds).not.toContain(target);
    // Said once: the next context has no revocation to report.
    const next = await api.post(api.conv(conv, '/context'), { ...request, budgetTokens: 200_000 });
    expect(next.body.receipt.revoked).toBeUndefined();
    expect(JSON.stringify(next.body.body)).toBe(JSON.stringify(after.body.body));

    const listedAfter = await api.get(api.conv(conv, '/compactions'));
    const status = Object.fromEntries(
      listedAfter.body.items.map((x: { decision: { id: string }; status: string }) => [
        x.decision.id,
        x.status,
      ]),
    );
    expect(status[target]).toBe('revoked');

    // Contexts handed out before and after the revocation reproduce byte for byte.
    for (const c of [first, after]) {
      const r = await api.get(api.conv(conv, `/contexts/${c.body.contextId}`));
      expect(r.status).toBe(200);
      expect(r.body.match).toBe(true);
    }
  });
});
