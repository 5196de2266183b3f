import { createHash } from 'node:crypto';
import type { ElisionDecision, SnapshotDecision } from '@arbor/domain/compaction';
import { checkBody } from '../validity';
import { assembleContext, autoTarget } from './assemble';
import { CannotFitError } from './errors';
import { fakeRenderer } from './testing/fake-pages';
import { prefixHash } from './state';
import { createTokenCache } from './token-cache';
import { baseInput, counterIds, session, setup } from './testing/builders';
import type { AssembleInput, AssembleResult, Summarize } from './types';

const messages = session({
  turns: 6,
  steps: 3,
  resultWords: 400,
  image: { width: 400, height: 300 },
  system: true,
});
/** Long answers, small results: elision cannot do much. */
const talk = session({ turns: 8, steps: 1, resultWords: 4, answerWords: 1200 });
const summarize: Summarize = async (r) => ({
  summary: `Read ${r.messages.length} messages worth of files.`,
  model: 'claude-haiku-4-5',
  windows: 1,
});

/** Budget whose auto target is `target`. */
/** A budget whose auto target is `target` (for budgets under ~80k, the reserve is 4096). */
const budgetFor = (target: number) => target + 4096;

async function total(over: Partial<AssembleInput> = {}): Promise<number> {
  const r = await assembleContext(baseInput(messages, { budgetTokens: 10_000_000, ...over }));
  return r.receipt.estimatedTokens;
}

const rungs = (r: AssembleResult) =>
  r.receipt.rungs.map((x) => `${x.rung}${x.applied ? '+' : '-'}`);

describe('assembleContext', () => {
  let full: number;
  beforeAll(async () => {
    full = await total();
  });

  it('targets the budget minus a reserve for the answer', () => {
    expect(autoTarget(100_000)).toBe(100_000 - 5_000);
    expect(autoTarget(20_000)).toBe(20_000 - 4096);
    expect(autoTarget(20_000, 8_000)).toBe(12_000);
  });

  it('changes nothing when the request fits', async () => {
    const r = await assembleContext(baseInput(messages, { budgetTokens: budgetFor(full + 10) }));
    expect(r.newDecisions).toEqual([]);
    expect(r.receipt.rungs).toEqual([]);
    expect(r.receipt.estimatedTokens).toBe(full);
    expect(checkBody('anthropic', r.body as never)).toEqual([]);
    const s = r.receipt.sections;
    expect(
      s.system + s.tools + s.messages + s.toolResults + s.images + s.snapshots + s.summaries,
    ).toBe(r.receipt.rawTokens);
  });

  it('climbs only as far as needed: elision alone when it is enough', async () => {
    const r = await assembleContext(
      baseInput(messages, {
        budgetTokens: budgetFor(full - 3000),
        renderPages: fakeRenderer().render,
        summarize,
      }),
    );
    expect(rungs(r)).toEqual(['elide+']);
    expect(r.newDecisions.map((d) => d.rung)).toEqual(['elide']);
    expect(r.newDecisions[0].trigger).toBe('threshold');
    expect(r.receipt.estimatedTokens).toBeLessThanOrEqual(r.receipt.targetTokens);
  });

  it('goes up to snapshots, then summaries, when the free rungs are not enough', async () => {
    const all = (await assembleContext(baseInput(talk, { budgetTokens: 10_000_000 }))).receipt
      .estimatedTokens;
    const snapshotted = await assembleContext(
      baseInput(talk, {
        budgetTokens: budgetFor(Math.floor(all * 0.5)),
        renderPages: fakeRenderer().render,
        summarize,
      }),
    );
    expect(snapshotted.newDecisions.map((d) => d.rung)).toEqual(['snapshot']);
    const summarized = await assembleContext(
      baseInput(talk, {
        budgetTokens: budgetFor(6000),
        renderPages: fakeRenderer().render,
        summarize,
      }),
    );
    expect(summarized.newDecisions.map((d) => d.rung)).toContain('summary');
    expect(summarized.receipt.estimatedTokens).toBeLessThanOrEqual(summarized.receipt.targetTokens);
  });

  it('strips images for the provider limits even when the request fits', async () => {
    const r = await assembleContext(
      baseInput(messages, { capabilities: { limits: { maxImages: 4 } } }),
    );
    expect(r.newDecisions).toHaveLength(1);
    expect(r.newDecisions[0]).toMatchObject({ rung: 'strip_images', trigger: 'image_limits' });
    expect(checkBody('anthropic', r.body as never, { limits: { maxImages: 4 } })).toEqual([]);
  });

  it('shakes: the free rungs even when it fits, nothing more', async () => {
    const r = await assembleContext(
      baseInput(messages, { mode: 'shake', renderPages: fakeRenderer().render }),
    );
    expect(r.newDecisions.map((d) => [d.rung, d.trigger])).toEqual([
      ['elide', 'shake'],
      ['strip_images', 'shake'],
    ]);
    expect(r.receipt.estimatedTokens).toBeLessThan(full);
  });

  it('snapshot mode: the free rungs, then the middle onto pages, even when it fits', async () => {
    const r = await assembleContext(
      baseInput(talk, {
        mode: 'snapshot',
        renderPages: fakeRenderer().render,
        capabilities: { protectTokens: 2000 },
      }),
    );
    // The last turn is bigger than the protected window: the tail starts inside it, so the
    // current prompt stays verbatim between two imaged segments.
    expect(r.newDecisions.map((d) => [d.rung, d.trigger])).toEqual([
      ['snapshot', 'snapshot'],
      ['snapshot', 'snapshot'],
    ]);
    expect(r.receipt.rungs.map((x) => x.rung)).toEqual(['elide', 'strip_images', 'snapshot']);
  });

  it('compact mode: forces the summary', async () => {
    const r = await assembleContext(
      baseInput(messages, { mode: 'compact', summarize, renderPages: fakeRenderer().render }),
    );
    expect(r.newDecisions.map((d) => [d.rung, d.trigger])).toEqual([['summary', 'compact']]);
  });

  it('compact mode without a summarizer: snapshots instead, and says so', async () => {
    const r = await assembleContext(
      baseInput(messages, { mode: 'compact', renderPages: fakeRenderer().render }),
    );
    expect(r.receipt.rungs[0]).toMatchObject({
      rung: 'summary',
      applied: false,
      reason: 'no summarizer configured: compacting onto snapshot pages instead',
    });
    expect(r.newDecisions.map((d) => [d.rung, d.trigger])).toEqual([['snapshot', 'compact']]);
  });

  it('compact mode with neither: says nothing can compact', async () => {
    const r = await assembleContext(baseInput(messages, { mode: 'compact' }));
    expect(r.receipt.rungs[0].reason).toMatch(/nothing can compact/);
    expect(r.newDecisions).toEqual([]);
  });

  it('recovers from an overflow: calibrates on the measured request, aims 5% under its limit', async () => {
    const measured = Math.round(full * 1.5);
    const limit = Math.round(full * 1.2);
    const r = await assembleContext(
      baseInput(messages, {
        budgetTokens: 10_000_000,
        overflow: { measuredTokens: measured, limitTokens: limit },
        renderPages: fakeRenderer().render,
      }),
    );
    expect(r.receipt.calibration).toBeCloseTo(measured / full, 5);
    expect(r.receipt.targetTokens).toBe(Math.floor(limit * 0.95));
    expect(r.receipt.estimatedTokens).toBeLessThanOrEqual(r.receipt.targetTokens);
    expect(r.newDecisions.every((d) => d.trigger === 'overflow')).toBe(true);
    expect(r.newDecisions.length).toBeGreaterThan(0);
  });

  it('applies the calibration factor to the estimate', async () => {
    const r = await assembleContext(baseInput(messages, { calibration: 1.5 }));
    expect(r.receipt.estimatedTokens).toBe(Math.ceil(r.receipt.rawTokens * 1.5));
  });

  it('answers cannot_fit with the numbers only when every rung was tried', async () => {
    const attempt = assembleContext(
      baseInput(messages, {
        budgetTokens: 5_000,
        renderPages: fakeRenderer().render,
        allowDrop: false,
      }),
    );
    await expect(attempt).rejects.toBeInstanceOf(CannotFitError);
    const error = (await attempt.catch((e: unknown) => e)) as CannotFitError;
    expect(error.code).toBe('cannot_fit');
    expect(error.budgetTokens).toBe(5_000);
    expect(error.targetTokens).toBe(5_000 - 4096);
    expect(error.estimatedTokens).toBeGreaterThan(error.targetTokens);
    expect(error.rungsTried.map((r) => r.rung)).toEqual(
      expect.arrayContaining(['elide', 'strip_images', 'snapshot', 'summary', 'drop']),
    );
    expect(error.rungsTried.find((r) => r.rung === 'drop')?.reason).toMatch(/allowDrop: false/);
    // The same request with drop allowed fits.
    const dropped = await assembleContext(
      baseInput(messages, { budgetTokens: 5_000, renderPages: fakeRenderer().render }),
    );
    expect(dropped.receipt.estimatedTokens).toBeLessThanOrEqual(dropped.receipt.targetTokens);
    expect(dropped.newDecisions.some((d) => d.rung === 'drop')).toBe(true);
  });

  it('reproduces the same body, and decides nothing new, with its decisions in force', async () => {
    const input = baseInput(messages, {
      budgetTokens: budgetFor(Math.floor(full * 0.4)),
      renderPages: fakeRenderer().render,
    });
    const first = await assembleContext(input);
    expect(first.newDecisions.length).toBeGreaterThan(0);
    const second = await assembleContext({
      ...input,
      decisions: first.newDecisions,
      renderPages: fakeRenderer().render,
      newId: counterIds('x'),
    });
    expect(second.newDecisions).toEqual([]);
    expect(JSON.stringify(second.body)).toBe(JSON.stringify(first.body));
    expect(second.receipt.estimatedTokens).toBe(first.receipt.estimatedTokens);
  });

  it('says whether a decision changed the previously sent prefix', async () => {
    const input = baseInput(messages, { budgetTokens: budgetFor(full - 3000) });
    const unknownTip = await assembleContext(input);
    expect(unknownTip.newDecisions[0].cachedPrefixChanged).toBe(true);
    expect(unknownTip.receipt.rungs[0].cachedPrefixChanged).toBe(true);
    // The previous request ended before the first elided result: its prefix is untouched.
    const elided = unknownTip.newDecisions[0] as ElisionDecision;
    const firstIndex = messages.findIndex((m) => m.id === elided.results[0].messageId);
    const earlyTip = await assembleContext({
      ...input,
      newId: counterIds(),
      previousTipId: messages[firstIndex - 1].id,
    });
    expect(earlyTip.newDecisions[0].cachedPrefixChanged).toBe(false);
  });

  it('hashes the prefix up to the first message a new decision changed', async () => {
    const input = baseInput(messages, { budgetTokens: budgetFor(full - 3000) });
    const r = await assembleContext(input);
    const elided = r.newDecisions[0] as ElisionDecision;
    const p = messages.findIndex((m) => m.id === elided.results[0].messageId);
    const { ctx, state } = await setup(input);
    expect(r.receipt.prefixHash).toBe(prefixHash(ctx, state, p));
    expect(r.receipt.prefixHash).not.toBe(prefixHash(ctx, state, p + 1));
    const unchanged = await assembleContext(baseInput(messages));
    expect(unchanged.receipt.prefixHash).toBe(prefixHash(ctx, state, messages.length));
    const other = await assembleContext(baseInput(messages, { system: 'other' }));
    expect(other.receipt.prefixHash).not.toBe(unchanged.receipt.prefixHash);
  });

  it('reports decisions in force it could not apply', async () => {
    const stale: SnapshotDecision = {
      id: 'old',
      rung: 'snapshot',
      trigger: 'threshold',
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      tokensBefore: 0,
      tokensAfter: 0,
      cachedPrefixChanged: true,
      fromId: 'm3',
      toId: 'm5',
      coveredIds: ['m3', 'm4', 'm5'],
      shape: 'claude',
      pageCount: 1,
      sourceChars: 10,
      sourceHash: 'x',
    };
    const r = await assembleContext(baseInput(messages, { decisions: [stale] }));
    expect(r.receipt.notApplied).toEqual([
      { decisionId: 'old', reason: 'no page renderer configured' },
    ]);
  });

  it.each(['anthropic', 'openai-chat', 'openai-responses', 'gemini'] as const)(
    'answers an empty window with a body without messages (%s)',
    async (provider) => {
      const r = await assembleContext({ ...baseInput([]), provider, system: 'be brief' });
      const body = r.body as unknown as Record<string, unknown>;
      const list = body.messages ?? body.input ?? body.contents;
      expect(Array.isArray(list) ? list.filter((m) => m.role !== 'system') : list).toEqual([]);
      expect(r.newDecisions).toEqual([]);
      expect(r.receipt.estimatedTokens).toBeGreaterThan(0);
    },
  );

  it('refuses a nonsensical budget', async () => {
    await expect(assembleContext(baseInput(messages, { budgetTokens: 0 }))).rejects.toThrow(
      RangeError,
    );
  });
});

describe('shared caches', () => {
  /** The same ids as `messages`, other content: what another tenant may hold under the same ids. */
  const other = messages.map((m) => ({
    ...m,
    content: m.content.map((b) => (b.type === 'text' ? { ...b, text: `${b.text} ${b.text}` } : b)),
  }));

  it('keeps conversations with the same id apart by their cache scope', async () => {
    const tokenCache = createTokenCache();
    const shared = (msgs: typeof messages, cacheScope: string) =>
      assembleContext(baseInput(msgs, { tokenCache, cacheScope }));
    await shared(messages, 'tenant-a/conv1');
    const b = await shared(other, 'tenant-b/conv1');
    const alone = await assembleContext(baseInput(other));
    expect(b.receipt).toEqual(alone.receipt);
    expect(JSON.stringify(b.body)).toBe(JSON.stringify(alone.body));
  });

  it('gives the same body and receipt with a warm cache as with none, call after call', async () => {
    const tokenCache = createTokenCache();
    const first = await assembleContext(baseInput(messages, { budgetTokens: 20_000, tokenCache }));
    expect(first.newDecisions.length).toBeGreaterThan(0);
    const inForce = { decisions: first.newDecisions, budgetTokens: 20_000 };
    const cold = await assembleContext(baseInput(messages, inForce));
    for (let i = 0; i < 3; i++) {
      const warm = await assembleContext(baseInput(messages, { ...inForce, tokenCache }));
      expect(warm.receipt).toEqual(cold.receipt);
      expect(JSON.stringify(warm.body)).toBe(JSON.stringify(cold.body));
    }
  });

  it("hashes the prefix as sha256 of the request head and the items' digests, concatenated", async () => {
    const input = baseInput(messages, { system: 'Be brief.', maxTokens: 1000 });
    const { ctx, state } = await setup(input);
    const head = JSON.stringify(['anthropic', 'claude-sonnet-4-5', 1000, 'Be brief.', null]);
    const digests = Buffer.concat(state.measure.stats.slice(0, 5).map((s) => s.digest));
    const expected = createHash('sha256').update(head).update(digests).digest('hex');
    expect(prefixHash(ctx, state, 5)).toBe(expected);
  });
});
