import { createHash } from 'node:crypto';
import { checkBody, PROVIDER_NAMES, type ProviderName } from '@arbor/context';
import {
  assistant,
  type Client,
  clientFor,
  exchange,
  msg,
  text,
  toolResult,
  toolTurn,
  toolUse,
  user,
} from './support/api';
import { type Harness, type HttpResult, startHarness } from './support/harness';

/** What the live read endpoints answered right after a write, at the revision it reached. */
interface Capture {
  revision: number;
  conversation: Record<string, unknown>;
  tree: Record<string, unknown>;
  checkpoints: unknown[];
  branch: unknown[];
  pendingFailure: unknown;
  decisionsInForce: number | null;
}

const sha256 = (body: unknown) => createHash('sha256').update(JSON.stringify(body)).digest('hex');
const bigResult = (n: number) => 'tool output line nobody needs verbatim again\n'.repeat(n);

/** A turn whose tool loop returns a large result (what elision works on). */
const heavyTurn = (label: string): ReturnType<typeof toolTurn> => [
  user(`inspect ${label}`),
  msg('assistant', [text(`reading ${label}`), toolUse(`call_${label}`, 'bash', { f: label })]),
  msg('user', [toolResult(`call_${label}`, bigResult(300))]),
  assistant(`inspected ${label}`),
];

describe('replay and reproduction (GET .../replay, .../contexts/{contextId})', () => {
  let h: Harness;
  let api: Client;
  let main: string;
  let fork: string;
  /** conversation → revision → live capture. */
  const captures = new Map<string, Map<number, Capture>>();
  /** contextId → the body the live POST handed out. */
  const handedOut = new Map<string, { body: unknown; provider: ProviderName }>();

  const capture = async (id: string): Promise<Capture> => {
    const conversation = await api.conversation(id);
    const retry: HttpResult = await api.get(api.conv(id, '/retry'));
    const report = await api.get(api.conv(id, '/context/report?provider=anthropic&model=m'));
    const c: Capture = {
      revision: conversation.revision as number,
      conversation,
      tree: await api.tree(id),
      checkpoints: (await api.get(api.conv(id, '/checkpoints'))).body.items,
      branch: await api.branch(id, 7),
      pendingFailure: retry.status === 200 ? retry.body : null,
      decisionsInForce: report.body.decisionsInForce ?? null,
    };
    if (retry.status !== 200) expect(retry.body.code).toBe('nothing_to_retry');
    const byRevision = captures.get(id) ?? new Map<number, Capture>();
    byRevision.set(c.revision, c);
    captures.set(id, byRevision);
    return c;
  };

  /** Runs one write, then captures the live state of each conversation it touched. */
  const step = async <T>(write: () => Promise<T>, ...touched: string[]): Promise<T> => {
    const result = await write();
    for (const id of touched) await capture(id);
    return result;
  };

  const context = async (id: string, request: Record<string, unknown>) => {
    const r = await api.post(api.conv(id, '/context'), { model: 'm', ...request });
    if (r.status !== 200) throw new Error(`context: ${r.status} ${r.text}`);
    handedOut.set(r.body.contextId, {
      body: r.body.body,
      provider: request.provider as ProviderName,
    });
    await capture(id);
    return r.body as { contextId: string; revision: number; receipt: { rungs: unknown[] } };
  };

  const ok = async (r: Promise<HttpResult>, status: number): Promise<HttpResult> => {
    const res = await r;
    if (res.status !== status) throw new Error(`expected ${status}: ${res.status} ${res.text}`);
    return res;
  };

  beforeAll(async () => {
    h = await startHarness();
    api = clientFor(h, (await h.createTenant('replay')).apiKey);
    main = await api.start({ title: 'replayed', metadata: { k: 'v' } });
    await capture(main);
    // Turns with tool loops (one with parallel calls), then heavy tool turns.
    const t1 = await step(() => api.turn(main, null, toolTurn('a', 2)), main);
    const t2 = await step(() => api.turn(main, t1.tip, exchange('b')), main);
    let tip = t2.tip;
    for (const label of ['c', 'd', 'e', 'f', 'g']) {
      tip = (await step(() => api.turn(main, tip, heavyTurn(label)), main)).tip;
    }
    await context(main, { provider: 'anthropic', budgetTokens: 200_000 });
    // Checkpoints, a branch (edited prompt), a tip move back.
    await step(() => api.checkpoint(main, 'cp1', t1.tip), main);
    await step(() => api.checkpoint(main, 'cp2', tip), main);
    const edited = await step(() => api.turn(main, t1.tip, exchange('b edited')), main);
    await step(() => api.moveTip(main, tip), main);
    // Contexts with elision, for every provider; then again with the decisions in force.
    for (const provider of PROVIDER_NAMES) {
      await context(main, { provider, budgetTokens: 9_000 });
    }
    await context(main, { provider: 'gemini', budgetTokens: 9_000 });
    await context(main, {
      provider: 'openai-chat',
      budgetTokens: 200_000,
      system: 'Be brief.',
      tools: [{ name: 'bash', description: 'run', input_schema: { type: 'object' } }],
      maxTokens: 2000,
      mode: 'shake',
    });
    // A failure, a reactive overflow context, then a turn with measured usage (calibration).
    await step(
      () => ok(api.post(api.conv(main, '/failures'), { input: 'x', error: 'e' }), 201),
      main,
    );
    await context(main, {
      provider: 'openai-responses',
      budgetTokens: 200_000,
      overflow: { measuredTokens: 9_000, limitTokens: 7_000 },
    });
    const measured = await step(
      () =>
        api.turn(main, tip, [
          user('after the failure'),
          { ...assistant('measured answer'), usage: { input_tokens: 5_000, output_tokens: 7 } },
        ]),
      main,
    );
    await context(main, { provider: 'anthropic', budgetTokens: 9_000 });
    // A fork, a turn and a context on it.
    const f = await step(
      () => ok(api.post(api.conv(main, '/forks'), { title: 'the fork' }), 201),
      main,
    );
    fork = f.body.id as string;
    await capture(fork);
    await step(() => api.turn(fork, f.body.idMap[measured.tip], toolTurn('fk')), fork);
    await context(fork, { provider: 'gemini', budgetTokens: 9_000 });
    // Rewind, a turn from there, a context on that branch, then a resume and contexts on the cut.
    await step(
      () => ok(api.post(api.conv(main, '/checkpoints/cp1/rewind'), { digest: 'why' }), 200),
      main,
    );
    const after = await step(() => api.turn(main, t1.tip, heavyTurn('h')), main);
    await context(main, { provider: 'openai-chat', budgetTokens: 200_000 });
    await step(() => api.moveTip(main, edited.tip), main);
    await step(() => api.moveTip(main, after.tip), main);
    await step(() => api.turn(main, after.tip, heavyTurn('i')), main);
    await step(() => ok(api.post(api.conv(main, '/resume'), { keepMessages: 6 }), 200), main);
    for (const provider of PROVIDER_NAMES) {
      await context(main, { provider, budgetTokens: 6_000 });
    }
    await step(
      () => ok(api.post(api.conv(main, '/failures'), { input: 'y', error: 'f' }), 201),
      main,
    );
  });

  afterAll(async () => {
    await h.destroy();
  });

  it('the script covers what replay must get right', async () => {
    const types = new Set((await api.events(main)).map((e) => e.type));
    for (const t of [
      'TurnCommitted',
      'TipMoved',
      'CheckpointSet',
      'CheckpointRewound',
      'CheckpointDropped',
      'RunResumed',
      'TurnFailed',
      'ConversationForked',
      'CompactionApplied',
      'ContextAssembled',
    ]) {
      expect({ type: t, present: types.has(t) }).toEqual({ type: t, present: true });
    }
    const receipts = await api.contexts(main);
    expect(receipts.some((r) => (r.newDecisionIds as string[]).length > 0)).toBe(true);
    expect(
      receipts.some(
        (r) =>
          (r.newDecisionIds as string[]).length === 0 && (r.decisionIds as string[]).length > 0,
      ),
    ).toBe(true);
  });

  const everyRevision = (id: () => string, minWrites: number) => async () => {
    const events = await api.events(id());
    const byRevision = captures.get(id()) ?? new Map<number, Capture>();
    let previous: Capture | null = null;
    let compared = 0;
    let decisions = 0;
    for (const event of events) {
      const n = event.revision;
      if (event.type === 'CompactionApplied') decisions++;
      const r = await api.replay(id(), n, 5);
      expect({ n, type: r.event.type, revision: r.revision }).toEqual({
        n,
        type: event.type,
        revision: n,
      });
      expect(r.conversation.revision).toBe(n);
      expect(r.compactions.decisions).toHaveLength(decisions);
      const live = byRevision.get(n);
      if (live !== undefined) {
        // The live state right after the write that reached N.
        expect({ n, conversation: r.conversation }).toEqual({ n, conversation: live.conversation });
        expect({ n, tree: r.tree }).toEqual({ n, tree: live.tree });
        expect({ n, checkpoints: r.checkpoints }).toEqual({ n, checkpoints: live.checkpoints });
        expect({ n, branch: r.branch.items }).toEqual({ n, branch: live.branch });
        expect(r.branch.length).toBe(live.branch.length);
        expect({ n, failure: r.pendingFailure }).toEqual({ n, failure: live.pendingFailure });
        expect(r.tip).toBe(live.conversation.tip);
        if (live.decisionsInForce !== null) {
          expect({ n, inForce: r.compactions.inForce.length }).toEqual({
            n,
            inForce: live.decisionsInForce,
          });
        }
        previous = live;
        compared++;
      } else {
        // Inside a multi-event write nobody could read: nothing visible moved yet but the rows.
        expect({ n, tip: r.tip }).toEqual({ n, tip: previous?.conversation.tip ?? null });
        expect({ n, failure: r.pendingFailure }).toEqual({
          n,
          failure: previous?.pendingFailure ?? null,
        });
        const nodes = (r.tree.nodes as unknown[]).length;
        expect(nodes).toBeGreaterThanOrEqual(
          ((previous?.tree.nodes as unknown[] | undefined) ?? []).length,
        );
      }
    }
    // Every write was captured and compared.
    expect(compared).toBe(byRevision.size);
    expect(compared).toBeGreaterThanOrEqual(minWrites);
  };

  it(
    'replay(N) equals the live state after every write, at every revision of the main conversation',
    everyRevision(() => main, 30),
  );

  it(
    'a fork replays on its own stream: the copy is in it',
    everyRevision(() => fork, 3),
  );

  it('replay at the fork event lists the fork; one revision earlier it does not', async () => {
    const forked = (await api.events(main)).find((e) => e.type === 'ConversationForked');
    expect(forked).toBeDefined();
    const at = await api.replay(main, forked!.revision);
    const before = await api.replay(main, forked!.revision - 1);
    expect(at.conversation.lineage.forks).toEqual([
      expect.objectContaining({ conversationId: fork }),
    ]);
    expect(before.conversation.lineage.forks).toEqual([]);
  });

  it('reports the window and the compactions in force after the resume', async () => {
    const events = await api.events(main);
    const resumed = events.filter((e) => e.type === 'RunResumed').pop()!;
    const r = await api.replay(main, resumed.revision);
    expect(r.window.cutAt).toBe(resumed.data.cutAt);
    expect(r.resume).toEqual(resumed.data);
    expect(r.window.messages).toBeLessThan(r.branch.length);
    const earlier = await api.replay(main, resumed.revision - 1);
    expect(earlier.window.cutAt).toBe(earlier.branch.items[0].id);
  });

  it('reproduces every context handed out, byte for byte, for all four providers', async () => {
    const seen = new Set<string>();
    let withDecisions = 0;
    for (const id of [main, fork]) {
      for (const receipt of await api.contexts(id)) {
        const r = await api.get(api.conv(id, `/contexts/${String(receipt.contextId)}`));
        expect(r.status).toBe(200);
        const live = handedOut.get(receipt.contextId as string)!;
        expect({
          contextId: receipt.contextId,
          match: r.body.match,
          mismatch: r.body.mismatch,
        }).toEqual({
          contextId: receipt.contextId,
          match: true,
          mismatch: undefined,
        });
        expect(r.body.bodyHash).toBe(r.body.recordedHash);
        expect(r.body.recordedHash).toBe(receipt.bodyHash);
        expect(r.body.bodyHash).toBe(sha256(live.body));
        expect(JSON.stringify(r.body.body)).toBe(JSON.stringify(live.body));
        expect(checkBody(live.provider, r.body.body)).toEqual([]);
        expect(r.body.checks.filter((c: { equal: boolean }) => !c.equal)).toEqual([]);
        seen.add(r.body.provider as string);
        if ((receipt.decisionIds as string[]).length > 0) withDecisions++;
      }
    }
    expect([...seen].sort()).toEqual([...PROVIDER_NAMES].sort());
    expect(withDecisions).toBeGreaterThan(3);
    expect(handedOut.size).toBe(
      (await api.contexts(main)).length + (await api.contexts(fork)).length,
    );
  });

  it('pages the replayed branch with cursors that belong to their revision', async () => {
    const last = (captures.get(main) as Map<number, Capture>).size;
    expect(last).toBeGreaterThan(0);
    const events = await api.events(main);
    const n = events[events.length - 1].revision;
    const first = await api.get(api.conv(main, `/replay?revision=${n}&limit=2`));
    expect(first.body.branch.items).toHaveLength(2);
    expect(typeof first.body.branch.next).toBe('string');
    const other = await api.get(
      api.conv(main, `/replay?revision=${n - 1}&limit=2&cursor=${first.body.branch.next}`),
    );
    expect(other.status).toBe(400);
    expect(other.body.errors[0].path).toBe('query.cursor');
  });

  it('records the ladder rungs with their reasons in the log, and lists them per context', async () => {
    const receipts = await api.contexts(main);
    const events = (await api.events(main)).filter((e) => e.type === 'ContextAssembled');
    expect(events).toHaveLength(receipts.length);
    for (const [i, r] of receipts.entries()) {
      const rungs = r.rungs as { rung: string; applied: boolean; reason: string }[];
      expect(Array.isArray(rungs)).toBe(true); // empty when the window fit without a rung
      for (const g of rungs) expect(g.reason.length).toBeGreaterThan(0);
      // The event itself carries them (receipt version 2): the list reads them from the log.
      expect(events[i].data.receiptVersion).toBe(2);
      expect(events[i].data.rungs).toEqual(rungs);
    }
    // A context that added a decision has an applied rung saying why.
    const compacting = receipts.find((r) => (r.newDecisionIds as string[]).length > 0)!;
    expect((compacting.rungs as { applied: boolean }[]).some((g) => g.applied)).toBe(true);
  });

  it('answers 404 revision_not_found past the end, 400 for a missing or negative revision', async () => {
    const events = await api.events(main);
    const lastRevision = events[events.length - 1].revision;
    const past = await api.get(api.conv(main, `/replay?revision=${lastRevision + 1}`));
    expect(past.status).toBe(404);
    expect(past.body).toMatchObject({ code: 'revision_not_found', lastRevision });
    for (const q of ['', '?revision=-1', '?revision=1.5', '?revision=x', '?revision=']) {
      const r = await api.get(api.conv(main, `/replay${q}`));
      expect({ q, status: r.status, code: r.body.code }).toEqual({
        q,
        status: 400,
        code: 'validation_failed',
      });
      expect(r.body.errors[0].path).toBe('query.revision');
    }
  });

  it("answers 404 conversation_not_found for an unknown id and for another tenant's", async () => {
    const other = clientFor(h, (await h.createTenant('other')).apiKey);
    const [contextId] = [...handedOut.keys()];
    for (const c of [other, api]) {
      const id = c === api ? 'never-existed' : main;
      for (const url of ['/replay?revision=0', '/contexts', `/contexts/${contextId}`]) {
        const r = await c.get(c.conv(id, url));
        expect({ url, status: r.status, code: r.body.code }).toEqual({
          url,
          status: 404,
          code: 'conversation_not_found',
        });
      }
    }
  });

  it('answers 404 context_not_found for a context id the conversation never handed out', async () => {
    const r = await api.get(api.conv(main, '/contexts/no-such-context'));
    expect(r.status).toBe(404);
    expect(r.body.code).toBe('context_not_found');
    const [forkContext] = await api.contexts(fork);
    const wrong = await api.get(api.conv(main, `/contexts/${String(forkContext.contextId)}`));
    expect(wrong.body.code).toBe('context_not_found');
  });

  it('documents both endpoints in OpenAPI', async () => {
    const doc = await h.call('GET', '/docs/openapi.json');
    const paths = Object.keys(doc.body.paths);
    expect(paths).toEqual(
      expect.arrayContaining([
        '/v1/conversations/{id}/replay',
        '/v1/conversations/{id}/contexts',
        '/v1/conversations/{id}/contexts/{contextId}',
      ]),
    );
  });
});

describe('a context whose elision a later rung of the same call superseded', () => {
  let h: Harness;
  let api: Client;
  beforeAll(async () => {
    h = await startHarness();
    api = clientFor(h, (await h.createTenant('supersede')).apiKey);
  });
  afterAll(async () => {
    await h.destroy();
  });

  it('reproduces with the same decision ids as recorded: the superseded one built it too', async () => {
    const id = await api.start();
    let tip: string | null = null;
    // Tool results the elision takes, and prose between them only a snapshot can shrink.
    const prose = (i: number) => `Finding ${i}: the reading matched the plan. `.repeat(80);
    for (let i = 0; i < 40; i++) {
      const turn = [...heavyTurn(`t${i}`).slice(0, 3), assistant(prose(i))];
      tip = (await api.turn(id, tip, turn)).tip;
    }
    for (let i = 0; i < 20; i++) {
      tip = (await api.turn(id, tip, [user(`q${i}`), assistant(prose(100 + i))])).tip;
    }
    const r = await api.post(api.conv(id, '/context'), {
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      budgetTokens: 200_000,
      mode: 'snapshot',
    });
    expect(r.status).toBe(200);
    const rungs = r.body.receipt.rungs as { rung: string; applied: boolean; reason: string }[];
    // The case: the elision was decided, then the snapshot took over what it had elided.
    expect(rungs.find((g) => g.rung === 'elide')?.reason).toMatch(/superseded by a later rung/);
    expect(rungs.find((g) => g.rung === 'snapshot')?.applied).toBe(true);
    const contextId = r.body.receipt.contextId ?? r.body.contextId;
    const again = await api.get(api.conv(id, `/contexts/${String(contextId)}`));
    expect(again.body.match).toBe(true);
    expect(
      (again.body.checks as { name: string; equal: boolean }[]).filter((c) => !c.equal),
    ).toEqual([]);
  });
});
