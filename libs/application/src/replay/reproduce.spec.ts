import {
  assembleContext,
  type AssembleInput,
  type AssembleResult,
  layerCapabilities,
} from '@arbor/context';
import { fakeRenderer } from '@arbor/context/ladder/testing/fake-pages';
import { baseInput, session } from '@arbor/context/ladder/testing/builders';
import {
  type ContextRecord,
  hashBody,
  judgeReproduction,
  reproduceContext,
  type ReproductionOutcome,
} from './reproduce';

const messages = session({ turns: 6, steps: 3, resultWords: 400, system: true });
const talk = session({ turns: 8, steps: 1, resultWords: 4, answerWords: 1200 });

/** What the context endpoint records for a call (as in context.service.ts). */
const recordOf = (input: AssembleInput, live: AssembleResult, revision = 40): ContextRecord => {
  const notApplied = new Set(live.receipt.notApplied.map((n) => n.decisionId));
  return {
    revision,
    newDecisions: live.newDecisions,
    data: {
      contextId: 'ctx-1',
      request: {
        provider: input.provider,
        model: input.model,
        budgetTokens: input.budgetTokens,
        mode: input.mode,
        system: input.system ?? null,
        tools: input.tools ?? [],
        maxTokens: input.maxTokens ?? null,
        overflow: input.overflow ?? null,
      },
      tip: input.messages[input.messages.length - 1].id,
      cutAt: input.messages[0].id,
      decisionIds: [...input.decisions, ...live.newDecisions]
        .map((d) => d.id)
        .filter((id) => !notApplied.has(id)),
      newDecisionIds: live.newDecisions.map((d) => d.id),
      bodyHash: hashBody(live.body),
      prefixHash: live.receipt.prefixHash,
      estimatedTokens: live.receipt.estimatedTokens,
      rawTokens: live.receipt.rawTokens,
      calibration: live.receipt.calibration,
      sections: live.receipt.sections,
      overflowSample: null,
    },
  };
};

const fullTokens = async () =>
  (await assembleContext(baseInput(messages, { budgetTokens: 10_000_000 }))).receipt
    .estimatedTokens;

describe('judgeReproduction', () => {
  const outcome: ReproductionOutcome = {
    ok: true,
    body: { model: 'm', messages: [{ role: 'user', content: 'hi' }] },
    appliedIds: ['d1'],
    estimatedTokens: 10,
    rawTokens: 10,
    prefixHash: 'p',
  };
  const record = (bodyHash: string): ContextRecord => ({
    revision: 7,
    newDecisions: [],
    data: {
      contextId: 'c',
      request: {
        provider: 'anthropic',
        model: 'm',
        budgetTokens: 1000,
        mode: 'auto',
        system: null,
        tools: [],
        maxTokens: null,
        overflow: null,
      },
      tip: 't',
      cutAt: 'r',
      decisionIds: ['d1'],
      newDecisionIds: [],
      bodyHash,
      prefixHash: 'p',
      estimatedTokens: 10,
      rawTokens: 10,
      calibration: 1,
      sections: {
        system: 0,
        tools: 0,
        messages: 10,
        toolResults: 0,
        images: 0,
        snapshots: 0,
        summaries: 0,
      },
      overflowSample: null,
    },
  });

  it('matches when the reproduced body hashes to the recorded hash', () => {
    const r = judgeReproduction(record(hashBody(outcome.ok ? outcome.body : null)), outcome);
    expect(r.match).toBe(true);
    expect(r.mismatch).toBeUndefined();
    expect(r.bodyHash).toBe(r.recordedHash);
    expect(r.checks.every((c) => c.equal)).toBe(true);
    expect(r.basedOnRevision).toBe(6);
  });

  it('reports a tampered recorded hash loudly: match false and a context_mismatch problem', () => {
    const good = hashBody(outcome.ok ? outcome.body : null);
    const tampered = (good[0] === '0' ? '1' : '0') + good.slice(1);
    const r = judgeReproduction(record(tampered), outcome);
    expect(r.match).toBe(false);
    expect(r.recordedHash).toBe(tampered);
    expect(r.bodyHash).toBe(good);
    expect(r.mismatch).toMatchObject({
      code: 'context_mismatch',
      reason: 'body_differs',
      contextId: 'c',
    });
    expect(r.mismatch?.detail).toContain(tampered);
  });

  it('names the receipt fields that differ too', () => {
    const r = judgeReproduction(record('x'), { ...outcome, appliedIds: [], rawTokens: 11 });
    expect(r.mismatch?.differing).toEqual(['decisionIds', 'rawTokens']);
  });

  it('gives no body when the reproduction could not run', () => {
    const r = judgeReproduction(record('x'), {
      ok: false,
      reason: 'rung_needed',
      detail: 'over',
      extra: { targetTokens: 5 },
    });
    expect(r).toMatchObject({ match: false, body: null, bodyHash: null });
    expect(r.mismatch).toMatchObject({ reason: 'rung_needed', targetTokens: 5, detail: 'over' });
  });
});

describe('reproduceContext', () => {
  it('reproduces an elided context exactly, for every decision recorded with it', async () => {
    const full = await fullTokens();
    const input = baseInput(messages, { budgetTokens: full - 3000 + 4096 });
    const live = await assembleContext(input);
    expect(live.newDecisions.length).toBeGreaterThan(0);
    const r = await reproduceContext({
      conversationId: input.conversationId,
      record: recordOf(input, live),
      decisionsBefore: [],
      window: messages,
      renderPages: null,
    });
    expect(r.match).toBe(true);
    expect(JSON.stringify(r.body)).toBe(JSON.stringify(live.body));
    expect(r.checks.filter((c) => !c.equal)).toEqual([]);
  });

  it('re-renders snapshot pages from source with a renderer, and says loudly when there is none', async () => {
    const input = baseInput(talk, {
      mode: 'snapshot',
      renderPages: fakeRenderer().render,
      capabilities: { protectTokens: 2000 },
    });
    const live = await assembleContext(input);
    expect(live.newDecisions.some((d) => d.rung === 'snapshot')).toBe(true);
    const args = {
      conversationId: input.conversationId,
      record: recordOf(input, live),
      decisionsBefore: [],
      window: talk,
    };
    const rendered = await reproduceContext({ ...args, renderPages: fakeRenderer().render });
    expect(rendered.match).toBe(true);
    const blind = await reproduceContext({ ...args, renderPages: null });
    expect(blind.match).toBe(false);
    expect(blind.body).toBeNull();
    expect(blind.mismatch).toMatchObject({ reason: 'snapshot_renderer_unavailable' });
    expect(blind.mismatch?.snapshotDecisionIds).toEqual(live.newDecisions.map((d) => d.id));
  });

  it('runs with the recorded capabilities, not the default table', async () => {
    // A model the default table calls blind, given vision (as a tenant setting would).
    const model = 'house-vision-1';
    const layered = layerCapabilities('anthropic', model, { house: { vision: true } });
    expect(layerCapabilities('anthropic', model).record.vision).toBe(false);
    const input = baseInput(talk, {
      model,
      mode: 'snapshot',
      renderPages: fakeRenderer().render,
      capabilities: { ...layered.capabilities, protectTokens: 2000 },
    });
    const live = await assembleContext(input);
    expect(live.newDecisions.some((d) => d.rung === 'snapshot')).toBe(true);
    const record = recordOf(input, live);
    const args = {
      conversationId: input.conversationId,
      decisionsBefore: [],
      window: talk,
      renderPages: fakeRenderer().render,
    };
    const withCaps: ContextRecord = {
      ...record,
      data: {
        ...record.data,
        request: {
          ...record.data.request,
          capabilities: { ...layered.record, protectTokens: 2000 },
        },
      },
    };
    const r = await reproduceContext({ ...args, record: withCaps });
    expect(r.match).toBe(true);
    expect(JSON.stringify(r.body)).toBe(JSON.stringify(live.body));
    // Without the record (the default table): the pages are left out, and it says so.
    const defaults = await reproduceContext({ ...args, record });
    expect(defaults.match).toBe(false);
    expect(defaults.mismatch?.reason).toBe('body_differs');
  });

  it('reports decisions_differ when the receipt names decisions missing from the log', async () => {
    const full = await fullTokens();
    const input = baseInput(messages, { budgetTokens: full - 3000 + 4096 });
    const live = await assembleContext(input);
    const record = recordOf(input, live);
    const r = await reproduceContext({
      conversationId: input.conversationId,
      record: { ...record, newDecisions: [], data: { ...record.data, newDecisionIds: [] } },
      decisionsBefore: [],
      window: messages,
      renderPages: null,
    });
    expect(r.match).toBe(false);
    expect(r.mismatch?.reason).toBe('decisions_differ');
  });

  it('reports rung_needed when the window is larger than the one recorded', async () => {
    const full = await fullTokens();
    const input = baseInput(messages.slice(0, 12), { budgetTokens: full - 3000 + 4096 });
    const live = await assembleContext(input);
    const r = await reproduceContext({
      conversationId: input.conversationId,
      record: recordOf(input, live),
      decisionsBefore: [],
      window: messages,
      renderPages: null,
    });
    expect(r.match).toBe(false);
    expect(r.mismatch?.reason).toBe('rung_needed');
  });

  it('passes a window problem through as window_differs', async () => {
    const input = baseInput(messages);
    const live = await assembleContext(input);
    const r = await reproduceContext({
      conversationId: input.conversationId,
      record: recordOf(input, live),
      decisionsBefore: [],
      window: { problem: 'the replayed tip is a, the recorded one b' },
      renderPages: null,
    });
    expect(r.mismatch).toMatchObject({
      reason: 'window_differs',
      detail: 'the replayed tip is a, the recorded one b',
    });
  });

  it('differs (body_differs) when the window holds other messages than the recorded ones', async () => {
    const input = baseInput(messages);
    const live = await assembleContext(input);
    const edited = messages.map((m, i) =>
      i === 1 ? { ...m, content: [{ type: 'text' as const, text: 'edited' }] } : m,
    );
    const r = await reproduceContext({
      conversationId: input.conversationId,
      record: recordOf(input, live),
      decisionsBefore: [],
      window: edited,
      renderPages: null,
    });
    expect(r.match).toBe(false);
    expect(r.mismatch?.reason).toBe('body_differs');
    expect(r.body).not.toBeNull();
  });
});
