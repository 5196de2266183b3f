/**
 * fast-check generators of valid neutral conversations: every tool_use answered in the next
 * message (results in any order), no result without its call, turns starting with the user,
 * system messages only between turns, thinking first in assistant messages. A turn with a tool
 * step may end on its tool results (an open turn); the next turn then opens with the assistant
 * continuing, and a conversation may end there (the model continues after the results).
 */
import fc from 'fast-check';
import type { Block, ImageBlock, TextBlock } from '@arbor/domain/messages';
import { type MessageSpec, chain } from './conversation';
import { makePngBase64 } from './images';

const word = fc.stringMatching(/^[a-z]{1,8}$/);
/** Non-blank text, sometimes with surrounding whitespace. */
const prose = fc
  .tuple(fc.array(word, { minLength: 1, maxLength: 6 }), fc.constantFrom('', ' ', '\n'))
  .map(([words, pad]) => pad + words.join(' ') + pad);

const textBlock: fc.Arbitrary<TextBlock> = prose.map((text) => ({ type: 'text', text }));
const blankBlock: fc.Arbitrary<TextBlock> = fc
  .constantFrom('', ' ', '\n\t')
  .map((text) => ({ type: 'text', text }));
const imageBlock: fc.Arbitrary<ImageBlock> = fc
  .tuple(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: 40 }))
  .map(([w, h]) => ({
    type: 'image',
    source: { type: 'base64', media_type: 'image/png', data: makePngBase64(w, h) },
  }));

const signature = fc.base64String({ minLength: 4, maxLength: 40 }).filter((s) => s.length > 0);
const thinking: fc.Arbitrary<Block> = fc
  .tuple(prose, signature)
  .map(([text, sig]) => ({ type: 'thinking', thinking: text, signature: sig }));

const model = fc.constantFrom<string | undefined>(
  'claude-sonnet-4-5',
  'gemini-2.5-pro',
  'gpt-4o',
  undefined,
);

/** User content: at least one non-blank text or image, maybe blank text beside it. */
const userContent: fc.Arbitrary<Block[]> = fc
  .tuple(
    fc.array(fc.oneof(textBlock, imageBlock), { minLength: 1, maxLength: 3 }),
    fc.option(blankBlock, { nil: undefined }),
  )
  .map(([blocks, blank]) => (blank ? [...blocks, blank] : blocks));

const toolInput = fc.dictionary(word, fc.oneof(word, fc.integer(), fc.boolean()), { maxKeys: 3 });

const resultContent = fc.oneof(
  prose,
  fc.constant(''),
  fc.array(fc.oneof({ weight: 3, arbitrary: textBlock }, { weight: 1, arbitrary: imageBlock }), {
    maxLength: 3,
  }),
);

interface StepShape {
  thinking: boolean;
  text: boolean;
  calls: number;
  inputs: Record<string, unknown>[];
  results: (string | (TextBlock | ImageBlock)[])[];
  errors: boolean[];
  order: number[];
  trailingText: TextBlock | undefined;
  model: string | undefined;
  thinkingBlock: Block;
  textBlock: TextBlock;
}

const step: fc.Arbitrary<StepShape> = fc.integer({ min: 1, max: 3 }).chain((calls) =>
  fc.record({
    thinking: fc.boolean(),
    text: fc.boolean(),
    calls: fc.constant(calls),
    inputs: fc.array(toolInput, { minLength: calls, maxLength: calls }),
    results: fc.array(resultContent, { minLength: calls, maxLength: calls }),
    errors: fc.array(fc.boolean(), { minLength: calls, maxLength: calls }),
    order: fc.shuffledSubarray(
      Array.from({ length: calls }, (_, i) => i),
      { minLength: calls, maxLength: calls },
    ),
    trailingText: fc.option(textBlock, { nil: undefined }),
    model,
    thinkingBlock: thinking,
    textBlock,
  }),
);

const turn = fc.record({
  user: userContent,
  steps: fc.array(step, { maxLength: 3 }),
  finalThinking: fc.option(thinking, { nil: undefined }),
  final: textBlock,
  finalModel: model,
  systemAfter: fc.option(textBlock, { freq: 4, nil: undefined }),
  /** With a tool step: end on its results, no answer (one turn in four). */
  open: fc.boolean().chain((a) => (a ? fc.boolean() : fc.constant(false))),
});

/** Valid neutral conversations, as committed messages (root → tip). */
export const validConversation = fc
  .tuple(fc.option(textBlock, { nil: undefined }), fc.array(turn, { minLength: 1, maxLength: 4 }))
  .map(([system, turns]) => {
    const specs: MessageSpec[] = system ? [{ role: 'system', content: [system] }] : [];
    let nextId = 0;
    let continues = false;
    for (const t of turns) {
      if (!continues) specs.push({ role: 'user', content: t.user });
      for (const s of t.steps) {
        const ids = Array.from({ length: s.calls }, () => `call_${++nextId}`);
        specs.push({
          role: 'assistant',
          ...(s.model !== undefined ? { model: s.model } : {}),
          content: [
            ...(s.thinking ? [s.thinkingBlock] : []),
            ...(s.text ? [s.textBlock] : []),
            ...ids.map((id, i): Block => ({
              type: 'tool_use',
              id,
              name: `tool_${i}`,
              input: s.inputs[i],
            })),
          ],
        });
        specs.push({
          role: 'user',
          content: [
            ...s.order.map((i): Block => ({
              type: 'tool_result',
              tool_use_id: ids[i],
              content: s.results[i],
              ...(s.errors[i] ? { is_error: true } : {}),
            })),
            ...(s.trailingText ? [s.trailingText] : []),
          ],
        });
      }
      continues = t.open && t.steps.length > 0;
      if (continues) continue;
      specs.push({
        role: 'assistant',
        ...(t.finalModel !== undefined ? { model: t.finalModel } : {}),
        content: [...(t.finalThinking ? [t.finalThinking] : []), t.final],
      });
      if (t.systemAfter) specs.push({ role: 'system', content: [t.systemAfter] });
    }
    return chain(specs);
  });
