import { PROVIDER_NAMES } from '../types';
import { assembleContext } from './assemble';
import { ReplayDivergenceError } from './errors';
import { serializeMessages } from './serialize';
import { fakeRenderer } from './testing/fake-pages';
import { baseInput, session } from './testing/builders';
import type { AssembleInput, AssembleResult, Summarize } from './types';

const messages = session({
  turns: 6,
  steps: 3,
  resultWords: 400,
  image: { width: 400, height: 300 },
  system: true,
});
const talk = session({ turns: 8, steps: 1, resultWords: 4, answerWords: 1200 });
const summarize: Summarize = async (r) => ({
  summary: `Read ${r.messages.length} messages.`,
  model: 'claude-haiku-4-5',
  windows: 1,
});
const budgetFor = (target: number) => target + 4096;
const noNewIds = () => {
  throw new Error('a replay must not decide anything');
};

/** The recorded call replayed: its decisions in force plus the ones it added, nothing else. */
const replayOf = (input: AssembleInput, live: AssembleResult, over: Partial<AssembleInput> = {}) =>
  assembleContext({
    ...input,
    decisions: [...input.decisions, ...live.newDecisions],
    calibration: live.receipt.calibration,
    summarize: undefined,
    newId: noNewIds,
    replayOnly: true,
    ...over,
  });

const fullTokens = async (m = messages) =>
  (await assembleContext(baseInput(m, { budgetTokens: 10_000_000 }))).receipt.estimatedTokens;

describe('assembleContext({replayOnly: true})', () => {
  it.each(PROVIDER_NAMES)(
    'reproduces an elided %s body byte for byte and decides nothing',
    async (provider) => {
      const full = await fullTokens();
      const input = baseInput(messages, { provider, budgetTokens: budgetFor(full - 3000) });
      const live = await assembleContext(input);
      expect(live.newDecisions.length).toBeGreaterThan(0);
      const replay = await replayOf(input, live);
      expect(JSON.stringify(replay.body)).toBe(JSON.stringify(live.body));
      expect(replay.newDecisions).toEqual([]);
      expect(replay.receipt.rungs).toEqual([]);
      expect(replay.receipt.estimatedTokens).toBe(live.receipt.estimatedTokens);
    },
  );

  it('re-renders snapshot pages from the source text, never from earlier images', async () => {
    const live = fakeRenderer();
    const input = baseInput(talk, {
      mode: 'snapshot',
      renderPages: live.render,
      capabilities: { protectTokens: 2000 },
    });
    const recorded = await assembleContext(input);
    const snapshots = recorded.newDecisions.filter((d) => d.rung === 'snapshot');
    expect(snapshots.length).toBeGreaterThan(0);
    const again = fakeRenderer();
    const replay = await replayOf(input, recorded, { renderPages: again.render });
    expect(JSON.stringify(replay.body)).toBe(JSON.stringify(recorded.body));
    const texts = again.calls.map((c) => c.text);
    for (const d of snapshots) {
      if (d.rung !== 'snapshot') continue;
      const covered = talk.filter((m) => d.coveredIds.includes(m.id));
      expect(texts).toContain(serializeMessages(covered));
    }
  });

  it('without a renderer, snapshot decisions are reported as not applied (no faked pages)', async () => {
    const input = baseInput(talk, {
      mode: 'snapshot',
      renderPages: fakeRenderer().render,
      capabilities: { protectTokens: 2000 },
    });
    const recorded = await assembleContext(input);
    const ids = recorded.newDecisions.map((d) => d.id);
    const replay = await replayOf(input, recorded, {
      renderPages: undefined,
      budgetTokens: 10_000_000,
    });
    expect(replay.receipt.notApplied.map((n) => n.decisionId)).toEqual(expect.arrayContaining(ids));
    expect(JSON.stringify(replay.body)).not.toBe(JSON.stringify(recorded.body));
  });

  it('applies a recorded summary without calling a summarizer', async () => {
    const input = baseInput(messages, {
      mode: 'compact',
      summarize,
      renderPages: fakeRenderer().render,
    });
    const recorded = await assembleContext(input);
    expect(recorded.newDecisions.map((d) => d.rung)).toEqual(['summary']);
    const replay = await replayOf(input, recorded);
    expect(JSON.stringify(replay.body)).toBe(JSON.stringify(recorded.body));
  });

  it('takes the recorded calibration as given on an overflow instead of recomputing it', async () => {
    const full = await fullTokens();
    const input = baseInput(messages, {
      budgetTokens: 10_000_000,
      overflow: { measuredTokens: Math.round(full * 1.5), limitTokens: Math.round(full * 1.2) },
    });
    const recorded = await assembleContext(input);
    expect(recorded.newDecisions.length).toBeGreaterThan(0);
    const replay = await replayOf(input, recorded);
    expect(JSON.stringify(replay.body)).toBe(JSON.stringify(recorded.body));
    expect(replay.receipt.calibration).toBe(recorded.receipt.calibration);
    expect(replay.receipt.targetTokens).toBe(recorded.receipt.targetTokens);
    expect(replay.receipt.estimatedTokens).toBe(recorded.receipt.estimatedTokens);
  });

  it('throws ReplayDivergenceError when a rung would be needed, instead of deciding', async () => {
    const full = await fullTokens();
    const input = baseInput(messages, { budgetTokens: budgetFor(full - 3000) });
    const recorded = await assembleContext(input);
    // Drop the decisions the call added: the window no longer fits without a rung.
    const attempt = replayOf(input, recorded, { decisions: input.decisions });
    await expect(attempt).rejects.toBeInstanceOf(ReplayDivergenceError);
    const error = (await attempt.catch((e: unknown) => e)) as ReplayDivergenceError;
    expect(error.estimatedTokens).toBeGreaterThan(error.targetTokens);
    expect(error.code).toBe('replay_diverged');
  });

  it('leaves ordinary assembly unchanged when the flag is off', async () => {
    const full = await fullTokens();
    const input = baseInput(messages, { budgetTokens: budgetFor(full - 3000) });
    const a = await assembleContext(input);
    const b = await assembleContext({ ...baseInput(messages, input), replayOnly: false });
    expect(JSON.stringify(b.body)).toBe(JSON.stringify(a.body));
    expect(b.newDecisions.length).toBe(a.newDecisions.length);
  });
});
