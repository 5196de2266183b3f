/** Conversations shaped for the ladder's tests: long tool loops, big results, images. */
import type { Block, Message } from '@arbor/domain/messages';
import { type MessageSpec, chain, png, text } from '../../testing/conversation';
import { createContext } from '../assemble';
import { type LadderContext, type LadderState, buildState } from '../state';
import type { AssembleInput } from '../types';

/** `words` distinct-ish words (~1–2 tokens each), deterministic. */
export function filler(words: number, seed = 0): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(`w${(i * 7919 + seed * 104729) % 9973}`);
  return out.join(' ');
}

export interface SessionShape {
  turns: number;
  steps: number;
  resultWords: number;
  /** A screenshot (w×h PNG) in every tool result. */
  image?: { width: number; height: number };
  system?: boolean;
  model?: string;
  /** Words of each final answer (default: a short sentence). */
  answerWords?: number;
}

/**
 * `turns` turns of: a user prompt, `steps` tool calls each answered by a result of
 * `resultWords` words, a final answer. Call ids `c<turn>_<step>`.
 */
export function session(shape: SessionShape): Message[] {
  const model = shape.model ?? 'claude-sonnet-4-5';
  const specs: MessageSpec[] = shape.system
    ? [{ role: 'system', content: [text('Be terse.')] }]
    : [];
  for (let t = 1; t <= shape.turns; t++) {
    specs.push({ role: 'user', content: [text(`Task ${t}: ${filler(20, t)}`)] });
    for (let s = 1; s <= shape.steps; s++) {
      const id = `c${t}_${s}`;
      specs.push({
        role: 'assistant',
        model,
        content: [{ type: 'tool_use', id, name: 'read', input: { path: `f${t}_${s}.txt` } }],
      });
      const result: Block[] = [text(filler(shape.resultWords, t * 100 + s))];
      if (shape.image) result.push(png(shape.image.width, shape.image.height));
      specs.push({
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: id, content: result as never }],
      });
    }
    const answer = shape.answerWords === undefined ? '' : ` ${filler(shape.answerWords, t + 7)}`;
    specs.push({ role: 'assistant', model, content: [text(`Done with task ${t}.${answer}`)] });
  }
  return chain(specs);
}

export function counterIds(prefix = 'd'): () => string {
  let n = 0;
  return () => `${prefix}${++n}`;
}

export function baseInput(messages: Message[], over: Partial<AssembleInput> = {}): AssembleInput {
  return {
    conversationId: 'conv1',
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    messages,
    decisions: [],
    budgetTokens: 200_000,
    mode: 'auto',
    newId: counterIds(),
    ...over,
  };
}

/** A ladder context and the state of the decisions in force, for testing one rung. */
export async function setup(
  input: AssembleInput,
): Promise<{ ctx: LadderContext; state: LadderState }> {
  const ctx = createContext(input);
  return { ctx, state: await buildState(ctx, input.decisions) };
}
