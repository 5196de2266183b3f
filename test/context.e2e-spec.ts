import { checkBody, PROVIDER_NAMES } from '@arbor/context';
import {
  clientFor,
  msg,
  text,
  toolResult,
  toolTurn,
  toolUse,
  user,
  assistant,
} from './support/api';
import { type Harness, startHarness } from './support/harness';

const bigResult = (n: number) => 'line of tool output that nobody will reread\n'.repeat(n);

describe('POST /v1/conversations/{id}/context', () => {
  let h: Harness;
  let api: ReturnType<typeof clientFor>;
  let conv: string;

  /** A task, twelve steps each with a large tool result, and a last tool turn. */
  const seed = async (): Promise<string> => {
    const id = await api.start({ title: 'context' });
    let tip: string | null = null;
    tip = (
      await api.turn(id, tip, [user('The task: keep the goal in mind.'), assistant('Understood.')])
    ).tip;
    for (let i = 0; i < 12; i++) {
      const call = `call_${i}`;
      tip = (
        await api.turn(id, tip, [
          user(`step ${i}`),
          msg('assistant', [text(`running ${i}`), toolUse(call, 'bash', { cmd: `ls ${i}` })]),
          msg('user', [toolResult(call, bigResult(400))]),
          assistant(`step ${i} done`),
        ])
      ).tip;
    }
    await api.turn(id, tip, toolTurn('last'));
    return id;
  };

  beforeAll(async () => {
    h = await startHarness();
    api = clientFor(h, (await h.createTenant('ctx')).apiKey);
    conv = await seed();
  });
  afterAll(async () => {
    await h.destroy();
  });

  it.each(PROVIDER_NAMES)(
    'hands out a valid %s body that fits, and records the receipt',
    async (provider) => {
      const r = await api.post(api.conv(conv, '/context'), {
        provider,
        model: 'm-1',
        budgetTokens: 200_000,
      });
      expect(r.status).toBe(200);
      expect(checkBody(provider, r.body.body)).toEqual([]);
      expect(r.body.receipt.estimatedTokens).toBeLessThanOrEqual(200_000);
      expect(r.body.receipt.prefixHash).toMatch(/^[0-9a-f]{64}$/);
      const events = await api.get(api.conv(conv, `/events?fromRevision=${r.body.revision}`));
      expect(events.body.items.map((e: { type: string }) => e.type)).toEqual(['ContextAssembled']);
      expect(events.body.items[0].data.request.provider).toBe(provider);
    },
  );

  it('elides old tool results to fit a small budget, keeps the pairing, and persists the decision', async () => {
    const first = await api.post(api.conv(conv, '/context'), {
      provider: 'anthropic',
      model: 'claude-x',
      budgetTokens: 12_000,
    });
    expect(first.status).toBe(200);
    const rungs = first.body.receipt.rungs
      .filter((x: { applied: boolean }) => x.applied)
      .map((x: { rung: string }) => x.rung);
    expect(rungs).toContain('elide');
    expect(checkBody('anthropic', first.body.body)).toEqual([]);
    const body = JSON.stringify(first.body.body);
    expect(body).toContain("The conversation's log keeps the original.");
    expect(body).not.toContain(conv);
    // The next call reproduces the same body (stable prefix) and decides nothing new.
    const again = await api.post(api.conv(conv, '/context'), {
      provider: 'anthropic',
      model: 'claude-x',
      budgetTokens: 12_000,
    });
    expect(JSON.stringify(again.body.body)).toBe(body);
    const events = await api.get(
      api.conv(conv, `/events?fromRevision=${first.body.revision - 5}&limit=50`),
    );
    const types = events.body.items.map((e: { type: string }) => e.type);
    expect(types.filter((t: string) => t === 'CompactionApplied').length).toBeGreaterThan(0);
    // Source messages are never altered.
    const tree = await api.get(api.conv(conv, '/messages?limit=1000'));
    expect(JSON.stringify(tree.body.items)).toContain(
      'line of tool output that nobody will reread',
    );
  });

  it('snapshots the middle onto real PNG pages, re-rendered identically on the next call', async () => {
    // A long narrative middle (prose, not tool output): what snapshots are for.
    const fresh = await api.start({ title: 'prose' });
    let tip: string | null = (
      await api.turn(fresh, null, [
        user('The task: keep the goal in mind.'),
        assistant('Understood.'),
      ])
    ).tip;
    const prose = (i: number) =>
      `Paragraph ${i}: the design review went through the event log, the projections and the ladder. `.repeat(
        40,
      );
    for (let i = 0; i < 48; i++) {
      tip = (await api.turn(fresh, tip, [user(`question ${i}`), assistant(prose(i))])).tip;
    }
    const ask = () =>
      api.post(api.conv(fresh, '/context'), {
        provider: 'anthropic',
        model: 'claude-sonnet-4-5',
        budgetTokens: 200_000,
        mode: 'snapshot',
      });
    const r = await ask();
    expect(r.status).toBe(200);
    const snap = r.body.receipt.rungs.find(
      (x: { rung: string; applied: boolean }) => x.rung === 'snapshot' && x.applied,
    );
    expect(snap).toBeDefined();
    expect(checkBody('anthropic', r.body.body)).toEqual([]);
    const images =
      JSON.stringify(r.body.body).match(/"media_type":"image\/png","data":"iVBORw0KGgo/g) ?? [];
    expect(images.length).toBeGreaterThan(0);
    // Head verbatim: the task stays text.
    expect(JSON.stringify(r.body.body.messages[0])).toContain('The task: keep the goal in mind.');
    const again = await ask();
    expect(JSON.stringify(again.body.body)).toBe(JSON.stringify(r.body.body));
    // The audit log reproduces it: pages re-rendered from the source text, same hash.
    const reproduced = await api.get(api.conv(fresh, `/contexts/${r.body.contextId}`));
    expect(reproduced.status).toBe(200);
    expect(reproduced.body.match).toBe(true);
    expect(JSON.stringify(reproduced.body.body)).toBe(JSON.stringify(r.body.body));
  });

  it('skips the snapshot rung for a model without vision, and says why', async () => {
    const fresh = await seed();
    const r = await api.post(api.conv(fresh, '/context'), {
      provider: 'openai-chat',
      model: 'gpt-3.5-turbo',
      budgetTokens: 200_000,
      mode: 'snapshot',
    });
    expect(r.status).toBe(200);
    const snap = r.body.receipt.rungs.find((x: { rung: string }) => x.rung === 'snapshot');
    expect(snap.applied).toBe(false);
    expect(snap.reason).toMatch(/vision|image/i);
    expect(JSON.stringify(r.body.body)).not.toContain('image_url');
  });

  it('answers 422 cannot_fit with the numbers when nothing can fit', async () => {
    const r = await api.post(api.conv(conv, '/context'), {
      provider: 'openai-chat',
      model: 'gpt-x',
      budgetTokens: 300,
      // Room for the answer, and a system prompt no rung can shorten that is over the rest.
      maxTokens: 50,
      system: 'word '.repeat(400),
    });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe('cannot_fit');
    expect(r.body.budgetTokens).toBe(300);
    expect(typeof r.body.estimatedTokens).toBe('number');
    // The numbers that explain it: what no rung can remove is over the target.
    const floor = r.body.systemTokens + r.body.toolsTokens + r.body.protectedTailTokens;
    expect(floor).toBeGreaterThan(r.body.targetTokens);
  });

  it('drops the oldest part of the middle when nothing else fits, unless allowDrop: false', async () => {
    const fresh = await seed();
    const request = { provider: 'openai-chat', model: 'gpt-x', budgetTokens: 4_700 };
    const refused = await api.post(api.conv(fresh, '/context'), { ...request, allowDrop: false });
    expect(refused.status).toBe(422);
    expect(refused.body.code).toBe('cannot_fit');
    const r = await api.post(api.conv(fresh, '/context'), request);
    expect(r.status).toBe(200);
    expect(checkBody('openai-chat', r.body.body)).toEqual([]);
    const rung = r.body.receipt.rungs.find((x: { rung: string }) => x.rung === 'drop');
    expect(rung.applied).toBe(true);
    expect(rung.details.messages).toBeGreaterThan(0);
    const events = await api.get(api.conv(fresh, `/events?fromRevision=0`));
    const drops = events.body.items.filter(
      (e: { type: string; data: { decision?: { rung: string } } }) =>
        e.type === 'CompactionApplied' && e.data.decision?.rung === 'drop',
    );
    expect(drops).toHaveLength(1);
    expect(drops[0].data.decision.droppedTokens).toBe(rung.details.tokens);
    // The log keeps what was dropped.
    const first = drops[0].data.decision.fromId;
    expect((await api.get(api.conv(fresh, `/messages/${first}`))).status).toBe(200);
  });

  it('accepts a raw provider overflow error and recovers reactively', async () => {
    const fresh = await seed();
    const r = await api.post(api.conv(fresh, '/context'), {
      provider: 'anthropic',
      model: 'claude-x',
      budgetTokens: 200_000,
      overflow: { error: 'prompt is too long: 30000 tokens > 20000 maximum' },
    });
    expect(r.status).toBe(200);
    expect(r.body.receipt.estimatedTokens).toBeLessThan(20_000);
    const applied = r.body.receipt.rungs.filter((x: { applied: boolean }) => x.applied);
    expect(applied.map((x: { trigger: string }) => x.trigger)).toContain('overflow');
    const bad = await api.post(api.conv(fresh, '/context'), {
      provider: 'anthropic',
      model: 'claude-x',
      budgetTokens: 200_000,
      overflow: { error: 'something else went wrong' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].path).toBe('body.overflow.error');
  });

  it('validates the request with precise paths', async () => {
    const r = await api.post(api.conv(conv, '/context'), {
      provider: 'acme',
      model: '',
      budgetTokens: 'x',
    });
    expect(r.status).toBe(400);
    const paths = r.body.errors.map((e: { path: string }) => e.path);
    expect(paths).toEqual(
      expect.arrayContaining(['body.provider', 'body.model', 'body.budgetTokens']),
    );
  });

  it('answers 404 for a conversation of nobody (or of another tenant)', async () => {
    const other = clientFor(h, (await h.createTenant('other')).apiKey);
    const r = await other.post(other.conv(conv, '/context'), {
      provider: 'anthropic',
      model: 'm',
      budgetTokens: 10_000,
    });
    expect(r.status).toBe(404);
    expect(r.body.code).toBe('conversation_not_found');
  });

  it('reports what fills the window without recording anything', async () => {
    const before = await api.get(api.conv(conv));
    const r = await api.get(api.conv(conv, '/context/report?provider=anthropic&model=claude-x'));
    expect(r.status).toBe(200);
    expect(r.body.estimated.sections.toolResults).toBeGreaterThan(0);
    expect(r.body.messages).toBeGreaterThan(10);
    const after = await api.get(api.conv(conv));
    expect(after.body.revision).toBe(before.body.revision);
  });
});
