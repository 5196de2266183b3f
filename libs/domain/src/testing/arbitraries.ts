/** fast-check generators of valid turns, for property tests. Not exported from the lib. */
import fc from 'fast-check';
import { type Block, type MessageInput } from '../messages';
import { pngBase64 } from './images';

const arbText = fc
  .string({ minLength: 1, maxLength: 40 })
  .map((text) => ({ type: 'text' as const, text }));

const arbThinking = fc
  .tuple(fc.string({ maxLength: 30 }), fc.base64String({ minLength: 4, maxLength: 16 }))
  .map(([thinking, signature]) => ({ type: 'thinking' as const, thinking, signature }));

const arbImage = fc.integer({ min: 8, max: 64 }).map((size) => ({
  type: 'image' as const,
  source: { type: 'base64' as const, media_type: 'image/png' as const, data: pngBase64(size) },
}));

// Tool inputs as they arrive over the wire: fc.jsonValue can yield -0, which JSON has no text for
// (JSON.stringify(-0) is "0"), so a stored or exported input comes back as 0. The round trip makes
// the generated value the one a client could actually send.
const arbToolInput = fc
  .dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 })
  .map((input) => JSON.parse(JSON.stringify(input)) as Record<string, unknown>);

/** One tool round: an assistant calling `n` tools and the user message answering them all. */
const arbToolRound = (round: number, tag: string): fc.Arbitrary<MessageInput[]> =>
  fc
    .record({
      thinking: fc.option(arbThinking, { nil: undefined }),
      lead: fc.option(arbText, { nil: undefined }),
      inputs: fc.array(arbToolInput, { minLength: 1, maxLength: 3 }),
      results: fc.array(
        fc.oneof(fc.string({ maxLength: 30 }), fc.array(arbText, { maxLength: 2 })),
        {
          minLength: 3,
          maxLength: 3,
        },
      ),
      errorFlags: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
      trailing: fc.option(arbText, { nil: undefined }),
    })
    .map(({ thinking, lead, inputs, results, errorFlags, trailing }) => {
      const ids = inputs.map((_, j) => `toolu_${tag}_${round}_${j}`);
      const call: Block[] = [
        ...(thinking ? [thinking] : []),
        ...(lead ? [lead] : []),
        ...inputs.map((input, j) => ({
          type: 'tool_use' as const,
          id: ids[j],
          name: `tool${j}`,
          input,
        })),
      ];
      const answer: Block[] = [
        ...ids.map((id, j) => ({
          type: 'tool_result' as const,
          tool_use_id: id,
          content: results[j],
          ...(errorFlags[j] ? { is_error: true } : {}),
        })),
        ...(trailing ? [trailing] : []),
      ];
      return [
        { role: 'assistant' as const, content: call },
        { role: 'user' as const, content: answer },
      ];
    });

export interface TurnShape {
  /** Allow a leading system message (only valid at the root). */
  withSystem?: boolean;
  maxToolRounds?: number;
  /**
   * Sometimes end on the tool results of the last round instead of an answer (a turn ending on
   * answered tool calls; the next turn is the assistant continuing: chain with `continuing`).
   * Default false, so callers that chain turns naively get whole question–answer turns.
   */
  openEnds?: boolean;
}

/**
 * A valid turn: [system?] user, (assistant tool_use, user tool_result)*, then the assistant's
 * answer — or, when there was a tool round and `openEnds`, sometimes no answer (the turn ends on
 * the last round's tool results).
 */
export const arbTurn = (shape: TurnShape = {}): fc.Arbitrary<MessageInput[]> =>
  fc
    .record({
      tag: fc.string({
        minLength: 4,
        maxLength: 4,
        unit: fc.constantFrom(...'abcdefghij0123456789'),
      }),
      system: shape.withSystem ? fc.option(arbText, { nil: undefined }) : fc.constant(undefined),
      prompt: fc.array(
        fc.oneof({ weight: 4, arbitrary: arbText }, { weight: 1, arbitrary: arbImage }),
        {
          minLength: 1,
          maxLength: 2,
        },
      ),
      rounds: fc.integer({ min: 0, max: shape.maxToolRounds ?? 2 }),
      answer: fc.tuple(fc.option(arbThinking, { nil: undefined }), arbText),
      open: shape.openEnds === true ? fc.boolean() : fc.constant(false),
    })
    .chain(({ tag, system, prompt, rounds, answer, open }) =>
      fc
        .tuple(...Array.from({ length: rounds }, (_, r) => arbToolRound(r, tag)))
        .map((toolRounds) => {
          const [thinking, final] = answer;
          const messages: MessageInput[] = [
            ...(system ? [{ role: 'system' as const, content: [system] }] : []),
            { role: 'user', content: prompt },
            ...toolRounds.flat(),
          ];
          if (!(open && rounds > 0))
            messages.push({ role: 'assistant', content: thinking ? [thinking, final] : [final] });
          return messages;
        }),
    );

/** Whether a turn ends on tool results (the next turn continues with the assistant). */
export const endsOnToolResults = (turn: readonly MessageInput[]): boolean =>
  turn[turn.length - 1]?.role === 'user';

/**
 * The turn as it hangs after a turn that ended on tool results: without its leading system and
 * user messages, so it opens with the assistant continuing. Never empty for an `arbTurn` (the
 * first tool round's call, else the answer, remains).
 */
export const continuing = (turn: readonly MessageInput[]): MessageInput[] => {
  const first = turn.findIndex((m) => m.role === 'assistant');
  return turn.slice(first);
};
