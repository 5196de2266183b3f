import type { Block, Message } from '@arbor/domain/messages';
import { assembleContext } from '../ladder';
import { baseInput, filler } from '../ladder/testing/builders';
import {
  anthropicKeepsPriorThinking,
  currentTurnStart,
  keepsPriorReasoning,
} from './thinking-rules';

let n = 0;
const msg = (role: Message['role'], content: Block[], model?: string): Message => ({
  id: `m${++n}`,
  parentId: null,
  role,
  content,
  turnId: 't',
  createdAt: '2026-01-01T00:00:00.000Z',
  ...(model !== undefined ? { model } : {}),
});
const text = (t: string): Block => ({ type: 'text', text: t });
const thinking = (words: number): Block => ({
  type: 'thinking',
  thinking: filler(words, 3),
  signature: 'sig',
});
const reasoning = (words: number): Block => ({
  type: 'reasoning',
  id: 'rs_1',
  summary: [{ type: 'summary_text', text: filler(words, 5) }],
});

describe('which models keep earlier turns’ thinking (Anthropic)', () => {
  it.each([
    ['claude-opus-4-5-20251101', true],
    ['claude-opus-4-6', true],
    ['claude-opus-5', true],
    ['claude-sonnet-4-6', true],
    ['claude-haiku-5', true],
    ['claude-opus-4-1-20250805', false],
    ['claude-opus-4-20250514', false],
    ['claude-sonnet-4-5', false],
    ['claude-sonnet-4-20250514', false],
    ['claude-haiku-4-5', false],
    ['claude-3-7-sonnet-20250219', false],
    ['claude-3-5-haiku-latest', false],
  ])('%s keeps prior thinking: %s', (model, keeps) => {
    expect(anthropicKeepsPriorThinking(model)).toBe(keeps);
  });

  it('OpenAI Responses never keeps earlier turns’ reasoning', () => {
    expect(keepsPriorReasoning('openai-responses', 'gpt-5')).toBe(false);
    expect(keepsPriorReasoning('openai-responses', 'o3')).toBe(false);
  });

  it('the current turn opens at the last user message that is not only tool results', () => {
    const m = [
      msg('user', [text('a')]),
      msg('assistant', [text('b')]),
      msg('user', [text('c')]),
      msg('assistant', [{ type: 'tool_use', id: 'x', name: 't', input: {} }]),
      msg('user', [{ type: 'tool_result', tool_use_id: 'x', content: 'r' }]),
    ];
    expect(currentTurnStart(m)).toBe(2);
  });
});

describe('counting thinking per model', () => {
  // An earlier turn with long thinking, then the current turn in a tool loop with thinking.
  const history = (model: string, block: (w: number) => Block) => [
    msg('user', [text('first question')]),
    msg('assistant', [block(2000), text('first answer')], model),
    msg('user', [text('second question')]),
    msg('assistant', [block(300), { type: 'tool_use', id: 'c1', name: 'ls', input: {} }], model),
    msg('user', [{ type: 'tool_result', tool_use_id: 'c1', content: 'out' }]),
  ];
  const estimate = async (
    provider: 'anthropic' | 'openai-responses',
    model: string,
    m: Message[],
  ) =>
    (await assembleContext(baseInput(m, { provider, model, budgetTokens: 1_000_000 }))).receipt
      .estimatedTokens;
  const without = (m: Message[]) =>
    m.map((x) => ({
      ...x,
      content: x.content.filter((b) => b.type !== 'thinking' && b.type !== 'reasoning'),
    }));

  it('Sonnet 4.5: earlier turns’ thinking is not counted, the tool loop’s is', async () => {
    const model = 'claude-sonnet-4-5';
    const m = history(model, thinking);
    const full = await estimate('anthropic', model, m);
    const bare = await estimate('anthropic', model, without(m));
    const loopOnly = await estimate('anthropic', model, [...without(m).slice(0, 3), ...m.slice(3)]);
    expect(full).toBe(loopOnly); // the 2,000-word earlier thinking costs nothing
    expect(full).toBeGreaterThan(bare + 200); // the loop's 300 words do
    // …and the body still carries both, signatures included (the API strips them itself).
    const body = JSON.stringify(
      (await assembleContext(baseInput(m, { model, budgetTokens: 1_000_000 }))).body,
    );
    expect(body.match(/"signature":"sig"/g)).toHaveLength(2);
  });

  it('Opus 4.5: every earlier turn’s thinking is counted', async () => {
    const model = 'claude-opus-4-5';
    const m = history(model, thinking);
    const full = await estimate('anthropic', model, m);
    const loopOnly = await estimate('anthropic', model, [...without(m).slice(0, 3), ...m.slice(3)]);
    expect(full - loopOnly).toBeGreaterThan(1500);
  });

  it('OpenAI Responses: reasoning counts in the current turn only', async () => {
    const model = 'gpt-5';
    const m = history(model, reasoning);
    const full = await estimate('openai-responses', model, m);
    const bare = await estimate('openai-responses', model, without(m));
    const loopOnly = await estimate('openai-responses', model, [
      ...without(m).slice(0, 3),
      ...m.slice(3),
    ]);
    expect(full).toBe(loopOnly);
    expect(full).toBeGreaterThan(bare + 200);
  });
});
