/**
 * Real sessions nobody here shaped (test/fixtures/real: Claude Code, pi and Codex), converted to
 * provider-valid windows, assembled for every provider at 8k, 32k and 128k budgets — each call on
 * a fresh conversation, and each after earlier calls (the conversation growing, the earlier
 * calls' decisions in force) — without a summarizer, with one, and with `allowDrop: false`.
 * Every answer is a body its checker accepts within the target, or a `CannotFitError` whose
 * protected tail (the turn in progress, measured here on its own) is over the target; with drop
 * allowed that is the only way to get one. Snapshot pages come from the test renderer.
 */
import type { Message } from '@arbor/domain/messages';
import { PROVIDER_NAMES, type ProviderName } from '../types';
import { checkBody } from '../validity';
import { assembleContext, autoTarget } from './assemble';
import { CannotFitError } from './errors';
import { DROP_OVERHEAD_TOKENS } from './rungs/drop';
import { fakeRenderer } from './testing/fake-pages';
import { counterIds, filler } from './testing/builders';
import { loadCodexWindows, loadRealWindows } from './testing/fixtures';
import { createTokenCache } from './token-cache';
import type { AssembleInput, AssembleResult, Summarize } from './types';
import { analyzeWindow } from './window';

const MODELS: Record<ProviderName, string> = {
  anthropic: 'claude-sonnet-4-5',
  'openai-chat': 'gpt-4o',
  'openai-responses': 'gpt-5',
  gemini: 'gemini-2.5-pro',
};
const BUDGETS = [8_000, 32_000, 128_000];
/** Points the growing conversation is assembled at (share of its messages), the last = all. */
const GROWTH = [0.4, 0.7, 1];

const summarize: Summarize = async (r) => ({
  summary: `Summary of ${r.messages.length} messages. ${filler(Math.floor(r.targetTokens / 3), 1)}`,
  model: 'fake-summarizer',
  windows: 1,
});

const windows = [...loadRealWindows(), ...loadCodexWindows()];
const cache = createTokenCache();

/** The window cut after `share` of its messages, at a turn start (so it is a valid history). */
function grown(messages: readonly Message[], share: number): Message[] {
  if (share >= 1) return [...messages];
  const shape = analyzeWindow(messages);
  let cut = Math.max(1, Math.floor(messages.length * share));
  while (cut < messages.length && !shape.turnStart[cut]) cut++;
  return messages.slice(0, cut);
}

/** The turn in progress alone, as the ladder measures it: its prompt to the end. */
async function turnInProgressTokens(input: AssembleInput): Promise<number> {
  const keep = analyzeWindow(input.messages).drop.keep;
  let at = 0;
  for (let i = input.messages.length - 1; i >= 0; i--) {
    if (keep[i] && input.messages[i].role !== 'system' && input.messages[i].pinned !== true) {
      at = i;
      break;
    }
  }
  const alone = await assembleContext({
    ...input,
    messages: input.messages.slice(at),
    decisions: [],
    budgetTokens: 100_000_000,
    newId: counterIds('alone'),
  });
  return alone.receipt.estimatedTokens;
}

interface Outcome {
  result?: AssembleResult;
  cannotFit?: CannotFitError;
}

async function attempt(input: AssembleInput): Promise<Outcome> {
  try {
    return { result: await assembleContext(input) };
  } catch (error) {
    if (!(error instanceof CannotFitError)) throw error;
    return { cannotFit: error };
  }
}

/** A body valid for its provider within the target, or a cannot_fit only a big tail explains. */
async function check(input: AssembleInput, outcome: Outcome, allowDrop: boolean): Promise<void> {
  const target = autoTarget(input.budgetTokens);
  if (outcome.result !== undefined) {
    const { body, receipt } = outcome.result;
    expect(checkBody(input.provider, body as never, { model: input.model })).toEqual([]);
    expect(receipt.estimatedTokens).toBeLessThanOrEqual(receipt.targetTokens);
    if (!allowDrop) expect(receipt.rungs.some((r) => r.rung === 'drop' && r.applied)).toBe(false);
    return;
  }
  const error = outcome.cannotFit as CannotFitError;
  expect(error.budgetTokens).toBe(input.budgetTokens);
  expect(error.targetTokens).toBe(target);
  expect(error.estimatedTokens).toBeGreaterThan(error.targetTokens);
  if (!allowDrop) return;
  const { systemTokens, toolsTokens, protectedTailTokens } = error.floor;
  // The floor the error reports, with at most two drop markers, is what is over the target …
  expect(
    systemTokens + toolsTokens + protectedTailTokens + 2 * DROP_OVERHEAD_TOKENS,
  ).toBeGreaterThan(target);
  // … and the turn in progress, measured on its own, says the same.
  expect((await turnInProgressTokens(input)) + 2 * DROP_OVERHEAD_TOKENS).toBeGreaterThan(target);
}

describe('real fixtures', () => {
  it('loads every file of claude-code/, pi/ and codex/ into a non-empty window', () => {
    expect(windows.length).toBe(16);
    for (const w of windows) expect(w.messages.length).toBeGreaterThan(0);
  });

  describe.each(windows.map((w) => [w.file, w] as const))('%s', (_file, w) => {
    it.each(PROVIDER_NAMES)('%s: fits unless the turn in progress cannot', async (provider) => {
      const model = MODELS[provider];
      const base = {
        conversationId: 'real',
        provider,
        model,
        mode: 'auto' as const,
        tokenCache: cache,
      };
      const counts = { ok: 0, cannotFit: 0, dropped: 0 };
      for (const budgetTokens of BUDGETS) {
        // A fresh conversation, no summarizer (drop takes its place), with one, and no drop.
        for (const variant of ['plain', 'summarizer', 'no-drop'] as const) {
          const input: AssembleInput = {
            ...base,
            messages: w.messages,
            decisions: [],
            budgetTokens,
            renderPages: fakeRenderer().render,
            ...(variant === 'summarizer' ? { summarize } : {}),
            ...(variant === 'no-drop' ? { allowDrop: false } : {}),
            newId: counterIds(variant),
          };
          const outcome = await attempt(input);
          await check(input, outcome, variant !== 'no-drop');
          if (variant === 'no-drop') continue;
          if (outcome.result === undefined) {
            counts.cannotFit++;
            continue;
          }
          counts.ok++;
          if (outcome.result.receipt.rungs.some((r) => r.rung === 'drop' && r.applied)) {
            counts.dropped++;
          }
          // Its decisions in force, the same bytes and nothing new.
          const again = await assembleContext({
            ...input,
            decisions: outcome.result.newDecisions,
            renderPages: fakeRenderer().render,
            newId: counterIds('again'),
          });
          expect(again.newDecisions).toEqual([]);
          expect(JSON.stringify(again.body)).toBe(JSON.stringify(outcome.result.body));
        }
        // The conversation growing, each call after the earlier ones (their decisions in force).
        const decisions: AssembleResult['newDecisions'] = [];
        let previousTipId: string | undefined;
        const ids = counterIds('grow');
        for (const share of GROWTH) {
          const messages = grown(w.messages, share);
          const input: AssembleInput = {
            ...base,
            messages,
            decisions: [...decisions],
            budgetTokens,
            renderPages: fakeRenderer().render,
            newId: ids,
            ...(previousTipId !== undefined ? { previousTipId } : {}),
          };
          const outcome = await attempt(input);
          await check(input, outcome, true);
          if (outcome.result !== undefined) decisions.push(...outcome.result.newDecisions);
          previousTipId = messages[messages.length - 1].id;
        }
      }
      console.log(`COUNTS ${w.file} ${provider} ${JSON.stringify(counts)}`);
      expect(counts.ok + counts.cannotFit).toBe(2 * BUDGETS.length);
    });
  });
});
