import type { CompactionDecision, SummaryDecision } from '@arbor/domain/compaction';
import type { Message } from '@arbor/domain/messages';
import { fakeRenderer } from '../testing/fake-pages';
import { baseInput, counterIds, session, setup } from '../testing/builders';
import { SummaryProviderError } from '../../summary/errors';
import type { Summarize, SummaryRequest } from '../types';
import { snapshot } from './snapshot';
import { summary } from './summary';

const messages = session({ turns: 6, steps: 3, resultWords: 400 });
const auto = { force: false, trigger: 'threshold' as const };

function fakeSummarizer() {
  const requests: SummaryRequest[] = [];
  const summarize: Summarize = async (request) => {
    requests.push(request);
    return {
      summary: `Worked through ${request.messages.length} messages of file reads.`,
      model: 'claude-haiku-4-5',
      windows: 2,
    };
  };
  return { summarize, requests };
}

async function run(
  targetShare: number,
  options: { force: boolean; trigger: 'threshold' | 'compact' } = auto,
  decisions: CompactionDecision[] = [],
  summarize: Summarize | null = fakeSummarizer().summarize,
) {
  const { ctx, state } = await setup(
    baseInput(messages, {
      ...(summarize !== null ? { summarize } : {}),
      decisions,
      renderPages: fakeRenderer().render,
      capabilities: { protectTokens: 4000 },
    }),
  );
  ctx.target = Math.floor(state.tokens * targetShare);
  const result = await summary(ctx, state, options);
  return { ctx, state, result, decisions: result.added as SummaryDecision[] };
}

describe('summary', () => {
  it('is unavailable without a summarizer, and says so', async () => {
    const { result } = await run(0.5, auto, [], null);
    expect(result.receipt).toMatchObject({ applied: false, reason: 'no summarizer configured' });
  });

  it('summarizes the source messages of the middle and puts the summary in their place', async () => {
    const s = fakeSummarizer();
    const { ctx, result, decisions } = await run(0.3, auto, [], s.summarize);
    expect(decisions).toHaveLength(1);
    const d = decisions[0];
    const from = messages.findIndex((m) => m.id === d.fromId);
    const to = messages.findIndex((m) => m.id === d.toId);
    expect(from).toBe(1);
    expect(s.requests).toHaveLength(1);
    expect(s.requests[0].messages).toEqual(messages.slice(from, to + 1));
    expect(s.requests[0].targetTokens).toBeGreaterThanOrEqual(256);
    expect(d).toMatchObject({
      summarizerModel: 'claude-haiku-4-5',
      windows: 2,
      summary: `Worked through ${to} messages of file reads.`,
    });
    expect(result.state.tokens).toBeLessThanOrEqual(ctx.target);
    const item = result.state.items[1];
    expect(item.kind).toBe('summary');
    expect(JSON.stringify(item.message.content)).toContain(d.summary);
  });

  it('sends the summarizer the originals, not placeholders', async () => {
    const elision: CompactionDecision = {
      id: 'e0',
      rung: 'elide',
      trigger: 'threshold',
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      tokensBefore: 0,
      tokensAfter: 0,
      cachedPrefixChanged: true,
      results: [{ messageId: 'm3', toolUseId: 'c1_1', originalTokens: 800 }],
    };
    const s = fakeSummarizer();
    await run(0.3, auto, [elision], s.summarize);
    expect(s.requests[0].messages.find((m: Message) => m.id === 'm3')).toBe(messages[2]);
  });

  it('supersedes a snapshot in force inside its middle', async () => {
    const { ctx, state } = await setup(
      baseInput(messages, {
        renderPages: fakeRenderer().render,
        capabilities: { protectTokens: 4000 },
        newId: counterIds('snap'),
      }),
    );
    ctx.target = Math.floor(state.tokens * 0.6);
    const imaged = await snapshot(ctx, state, auto);
    expect(imaged.added).toHaveLength(1);
    const { result, decisions } = await run(0.2, auto, imaged.added);
    expect(decisions[0].fromId).toBe('m2');
    expect(result.state.plan.applied.has(imaged.added[0].id)).toBe(false);
    expect(result.state.items.some((i) => i.kind === 'snapshot')).toBe(false);
  });

  it('compacts when forced, though the request fits', async () => {
    const { decisions, result } = await run(2, { force: true, trigger: 'compact' });
    expect(decisions).toHaveLength(1);
    expect(result.receipt.trigger).toBe('compact');
  });

  it('reports a summarizer failure instead of applying', async () => {
    const failing: Summarize = async () => {
      throw new Error('429 rate limited');
    };
    const { result } = await run(0.3, auto, [], failing);
    expect(result.receipt).toMatchObject({
      applied: false,
      reason: 'summarizer failed: 429 rate limited',
    });
  });

  it('says the provider, status and error type of a provider failure', async () => {
    const failing: Summarize = async () => {
      throw new SummaryProviderError(500, 'api_error', 'Internal server error');
    };
    const down: Summarize = async () => {
      throw new SummaryProviderError(0, 'network_error', 'request failed: connect ECONNREFUSED');
    };
    expect((await run(0.3, auto, [], failing)).result.receipt.reason).toBe(
      'summarizer failed: HTTP 500 api_error: Internal server error',
    );
    expect((await run(0.3, auto, [], down)).result.receipt.reason).toBe(
      'summarizer failed: network_error: request failed: connect ECONNREFUSED',
    );
  });

  it('does not ask a summarizer that failed again in the same call', async () => {
    let calls = 0;
    const failing: Summarize = async () => {
      calls += 1;
      throw new SummaryProviderError(503, 'overloaded_error', 'Overloaded');
    };
    const { ctx, state, result } = await run(0.3, auto, [], failing);
    expect(calls).toBe(1);
    const again = await summary(ctx, state, { force: true, trigger: 'threshold' });
    expect(calls).toBe(1);
    expect(again.receipt).toMatchObject({
      applied: false,
      reason: `${result.receipt.reason} (not asked again in this call)`,
    });
    expect(again.added).toEqual([]);
  });
});
