/**
 * Real sessions nobody here shaped (test/fixtures/real: Claude Code and pi), converted to
 * provider-valid windows, assembled for every provider at 8k, 32k and 128k budgets: each gives a
 * body its checker accepts within the target, or a CannotFitError with consistent numbers after
 * every rung was tried. Snapshot pages come from the test renderer (@arbor/snapshots is not in
 * this repository yet), summaries from a fake summarizer.
 */
import { RUNGS } from '@arbor/domain/compaction';
import { PROVIDER_NAMES, type ProviderName } from '../types';
import { checkBody } from '../validity';
import { assembleContext, autoTarget } from './assemble';
import { CannotFitError } from './errors';
import { fakeRenderer } from './testing/fake-pages';
import { counterIds, filler } from './testing/builders';
import { loadRealWindows } from './testing/fixtures';
import { createTokenCache } from './token-cache';
import type { AssembleResult, Summarize } from './types';

const MODELS: Record<ProviderName, string> = {
  anthropic: 'claude-sonnet-4-5',
  'openai-chat': 'gpt-4o',
  'openai-responses': 'gpt-5',
  gemini: 'gemini-2.5-pro',
};
const BUDGETS = [8_000, 32_000, 128_000];

const summarize: Summarize = async (r) => ({
  summary: `Summary of ${r.messages.length} messages. ${filler(Math.floor(r.targetTokens / 3), 1)}`,
  model: 'fake-summarizer',
  windows: 1,
});

const windows = loadRealWindows();
const cache = createTokenCache();

describe('real fixtures', () => {
  it('loads every file of claude-code/ and pi/ into a non-empty window', () => {
    expect(windows.length).toBe(14);
    for (const w of windows) expect(w.messages.length).toBeGreaterThan(0);
  });

  describe.each(windows.map((w) => [w.file, w] as const))('%s', (_file, w) => {
    it.each(PROVIDER_NAMES)(
      '%s: a valid body within the target, or cannot_fit',
      async (provider) => {
        const model = MODELS[provider];
        const outcomes: string[] = [];
        for (const budgetTokens of BUDGETS) {
          for (const withSummarizer of [false, true]) {
            const input = {
              conversationId: 'real',
              provider,
              model,
              messages: w.messages,
              decisions: [],
              budgetTokens,
              mode: 'auto' as const,
              renderPages: fakeRenderer().render,
              ...(withSummarizer ? { summarize } : {}),
              newId: counterIds(),
              tokenCache: cache,
            };
            let result: AssembleResult;
            try {
              result = await assembleContext(input);
            } catch (error) {
              if (!(error instanceof CannotFitError)) throw error;
              expect(error.budgetTokens).toBe(budgetTokens);
              expect(error.targetTokens).toBe(autoTarget(budgetTokens));
              expect(error.estimatedTokens).toBeGreaterThan(error.targetTokens);
              expect(new Set(error.rungsTried.map((r) => r.rung))).toEqual(new Set(RUNGS));
              outcomes.push('cannot_fit');
              continue;
            }
            expect(checkBody(provider, result.body as never, { model })).toEqual([]);
            expect(result.receipt.estimatedTokens).toBeLessThanOrEqual(result.receipt.targetTokens);
            const again = await assembleContext({
              ...input,
              decisions: result.newDecisions,
              renderPages: fakeRenderer().render,
              newId: counterIds('x'),
            });
            expect(again.newDecisions).toEqual([]);
            expect(JSON.stringify(again.body)).toBe(JSON.stringify(result.body));
            outcomes.push('ok');
          }
        }
        // With a summarizer every file fits every budget (order: 8k, 8k + summarizer, 32k, …).
        expect([outcomes[1], outcomes[3], outcomes[5]]).toEqual(['ok', 'ok', 'ok']);
      },
    );
  });
});
