/**
 * Property: for random valid conversations (tool loops, parallel calls, errors, images,
 * thinking, system messages, pinned messages), budgets, providers, modes, overflow reports and
 * rung availability, the assembler either returns a body its provider's checker accepts and
 * whose estimate is within the target, or a CannotFitError whose numbers say so. Its decisions,
 * put in force, reproduce the same body byte for byte and the next ordinary call decides
 * nothing new. Sources are never changed.
 */
import fc from 'fast-check';
import type { Block, Message } from '@arbor/domain/messages';
import { validConversation } from '../testing/arbitraries';
import type { ProviderName } from '../types';
import { checkBody } from '../validity';
import { assembleContext, autoTarget, OVERFLOW_HEADROOM } from './assemble';
import { CannotFitError } from './errors';
import { fakeRenderer } from './testing/fake-pages';
import { counterIds, filler } from './testing/builders';
import type { AssembleInput, AssembleMode, Summarize } from './types';

const TARGETS: { provider: ProviderName; model: string }[] = [
  { provider: 'anthropic', model: 'claude-sonnet-4-5' },
  { provider: 'openai-chat', model: 'gpt-4o' },
  { provider: 'openai-chat', model: 'gpt-3.5-turbo' }, // no vision: no snapshots
  { provider: 'openai-responses', model: 'gpt-5-mini' },
  { provider: 'gemini', model: 'gemini-2.5-pro' },
  { provider: 'gemini', model: 'gemini-3-pro-preview' },
];

/** Grows text and tool output (not blank text: blank must stay blank) by `words` words. */
function inflate(message: Message, words: number, pinned: boolean): Message {
  const grow = (text: string) =>
    text.trim() === '' ? text : `${text} ${filler(words, text.length)}`;
  const content = message.content.map((b): Block => {
    if (b.type === 'text') return { ...b, text: grow(b.text) };
    if (b.type === 'tool_result') {
      return {
        ...b,
        content:
          typeof b.content === 'string'
            ? `${b.content} ${filler(words, 3)}`
            : b.content.map((c) => (c.type === 'text' ? { ...c, text: grow(c.text) } : c)),
      };
    }
    return b;
  });
  return { ...message, content, ...(pinned ? { pinned: true } : {}) };
}

const scenario = fc.record({
  conversation: validConversation,
  words: fc.array(
    fc.oneof(
      { weight: 3, arbitrary: fc.constant(0) },
      { weight: 4, arbitrary: fc.integer({ min: 1, max: 150 }) },
      { weight: 2, arbitrary: fc.integer({ min: 150, max: 800 }) },
    ),
    {
      minLength: 40,
      maxLength: 40,
    },
  ),
  pins: fc.array(fc.integer({ min: 0, max: 39 }), { maxLength: 2 }),
  target: fc.constantFrom(...TARGETS),
  /** Budget beyond the reserve for the answer: mostly tight, sometimes none at all. */
  room: fc.oneof(
    { weight: 1, arbitrary: fc.integer({ min: -500, max: 200 }) },
    { weight: 6, arbitrary: fc.integer({ min: 200, max: 12_000 }) },
  ),
  maxTokens: fc.option(fc.integer({ min: 16, max: 4000 }), { nil: undefined }),
  mode: fc.constantFrom<AssembleMode>('auto', 'auto', 'shake', 'snapshot', 'compact'),
  /** A provider's overflow report, one case in four. */
  overflow: fc.oneof(
    { weight: 3, arbitrary: fc.constant(undefined) },
    {
      weight: 1,
      arbitrary: fc.record({
        measuredTokens: fc.integer({ min: 100, max: 60_000 }),
        limitTokens: fc.integer({ min: 500, max: 40_000 }),
      }),
    },
  ),
  calibration: fc.option(fc.double({ min: 0.5, max: 2, noNaN: true }), { nil: undefined }),
  renderer: fc.boolean(),
  summarizer: fc.boolean(),
  caps: fc.record({
    protectTokens: fc.integer({ min: 0, max: 4000 }),
    minElisionSavings: fc.integer({ min: 0, max: 3000 }),
    keepImages: fc.integer({ min: 0, max: 4 }),
    maxImages: fc.option(fc.integer({ min: 1, max: 6 }), { nil: undefined }),
  }),
});

const summarize: Summarize = async (r) => ({
  summary: `Summary of ${r.messages.length} messages: ${filler(20, r.messages.length)}`,
  model: 'fake-summarizer',
  windows: 1,
});

describe('assembleContext (property)', () => {
  it('returns a valid body within the target, or cannot_fit with consistent numbers', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const messages = s.conversation.map((m, i) =>
          inflate(m, s.words[i % s.words.length], s.pins.includes(i)),
        );
        const before = JSON.stringify(messages);
        const budget = Math.max(1, (s.maxTokens ?? 4096) + s.room);
        const limits = s.caps.maxImages === undefined ? {} : { maxImages: s.caps.maxImages };
        const input: AssembleInput = {
          conversationId: 'prop',
          provider: s.target.provider,
          model: s.target.model,
          messages,
          decisions: [],
          budgetTokens: budget,
          maxTokens: s.maxTokens,
          mode: s.mode,
          overflow: s.overflow,
          calibration: s.calibration,
          capabilities: {
            protectTokens: s.caps.protectTokens,
            minElisionSavings: s.caps.minElisionSavings,
            keepImages: s.caps.keepImages,
            limits,
          },
          ...(s.renderer ? { renderPages: fakeRenderer().render } : {}),
          ...(s.summarizer ? { summarize } : {}),
          newId: counterIds('a'),
        };
        const auto = autoTarget(budget, s.maxTokens);
        const expectedTarget =
          s.overflow === undefined
            ? auto
            : Math.min(Math.floor(s.overflow.limitTokens * (1 - OVERFLOW_HEADROOM)), auto);
        let result;
        try {
          result = await assembleContext(input);
        } catch (error) {
          if (!(error instanceof CannotFitError)) throw error;
          expect(error.targetTokens).toBe(expectedTarget);
          expect(error.budgetTokens).toBe(budget);
          expect(error.estimatedTokens).toBeGreaterThan(error.targetTokens);
          expect(JSON.stringify(messages)).toBe(before);
          return;
        }
        const { body, receipt, newDecisions } = result;
        expect(
          checkBody(s.target.provider, body as never, { limits, model: s.target.model }),
        ).toEqual([]);
        expect(receipt.targetTokens).toBe(expectedTarget);
        expect(receipt.estimatedTokens).toBeLessThanOrEqual(receipt.targetTokens);
        expect(JSON.stringify(messages)).toBe(before);

        // Put in force, the decisions give the same bytes, and the next ordinary call (auto,
        // no new message) decides nothing new. (Asking again for a forced mode may reach
        // further, e.g. into room its page cap left the first time.)
        const again = await assembleContext({
          ...input,
          mode: 'auto',
          decisions: newDecisions,
          overflow: undefined,
          calibration: receipt.calibration,
          ...(s.renderer ? { renderPages: fakeRenderer().render } : {}),
          newId: counterIds('b'),
        });
        expect(again.newDecisions).toEqual([]);
        expect(JSON.stringify(again.body)).toBe(JSON.stringify(body));
      }),
      { numRuns: 200 },
    );
  }, 120_000);
});
