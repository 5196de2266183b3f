/**
 * Property: every valid neutral conversation encodes, for every provider, into a body its checker
 * accepts; and breaking the pairing (a dropped or moved tool result) is always caught.
 */
import fc from 'fast-check';
import type { Message } from '@arbor/domain/messages';
import { encode } from './providers';
import { validConversation } from './testing/arbitraries';
import { PROVIDER_NAMES, type ProviderName } from './types';
import { checkBody } from './validity';

const TARGETS: { provider: ProviderName; model: string }[] = [
  { provider: 'anthropic', model: 'claude-sonnet-4-5' },
  { provider: 'openai-chat', model: 'gpt-4o' },
  { provider: 'openai-chat', model: 'o3' },
  { provider: 'openai-responses', model: 'gpt-4.1' },
  { provider: 'gemini', model: 'gemini-2.5-pro' },
  { provider: 'gemini', model: 'gemini-3-pro-preview' },
];

function violations(messages: readonly Message[], provider: ProviderName, model: string) {
  // Gemini 2.5 without call ids: pairing by name and order must hold too.
  const callIds = model !== 'gemini-2.5-pro';
  const body = encode(provider, messages, { model, system: 'You are a test.', callIds });
  return checkBody(provider, body, { model });
}

const hasToolResult = (m: Message) => m.content.some((b) => b.type === 'tool_result');

/** Removes one tool_result block (and its message if it empties). */
function dropResult(messages: Message[], pick: number): Message[] {
  const holders = messages.flatMap((m, i) => (hasToolResult(m) ? [i] : []));
  const at = holders[pick % holders.length];
  const target = messages[at];
  const index = target.content.findIndex((b) => b.type === 'tool_result');
  const content = target.content.filter((_, j) => j !== index);
  return content.length === 0
    ? messages.filter((_, i) => i !== at)
    : messages.map((m, i) => (i === at ? { ...m, content } : m));
}

/** Moves one tool-result message to before the assistant message whose calls it answers. */
function resultBeforeCall(messages: Message[], pick: number): Message[] {
  const holders = messages.flatMap((m, i) => (hasToolResult(m) ? [i] : []));
  const at = holders[pick % holders.length];
  const reordered = [...messages];
  [reordered[at - 1], reordered[at]] = [reordered[at], reordered[at - 1]];
  return reordered;
}

/** Content that survives encoding: a tool result, non-blank text or an image. */
const survives = (b: Message['content'][number]) =>
  b.type === 'tool_result' || b.type === 'image' || (b.type === 'text' && b.text.trim() !== '');

/**
 * Moves one tool result into a later user message (not the very next one). The message it
 * leaves keeps other content: were it emptied, the assistant messages around it would merge and
 * the move would be a legitimate repair for Anthropic and Gemini, not a break.
 */
function resultTooLate(messages: Message[], pick: number): Message[] | null {
  const holders = messages.flatMap((m, i) => (hasToolResult(m) ? [i] : []));
  const at = holders[pick % holders.length];
  const later = messages.findIndex((m, i) => i > at + 1 && m.role === 'user');
  const block = messages[at].content.find((b) => b.type === 'tool_result');
  if (later === -1 || !block) return null;
  const rest = messages[at].content.filter((b) => b !== block);
  if (!rest.some(survives)) return null;
  return messages.map((m, i) => {
    if (i === at) return { ...m, content: rest };
    if (i === later) return { ...m, content: [block, ...m.content] };
    return m;
  });
}

const withToolCalls = validConversation.filter((messages) => messages.some(hasToolResult));

describe('encode → check', () => {
  it('valid conversations encode into bodies every checker accepts', () => {
    fc.assert(
      fc.property(validConversation, (messages) => {
        for (const { provider, model } of TARGETS) {
          expect(violations(messages, provider, model)).toEqual([]);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('covers every provider', () => {
    expect(new Set(TARGETS.map((t) => t.provider))).toEqual(new Set(PROVIDER_NAMES));
  });

  it('catches a dropped tool result for every provider', () => {
    fc.assert(
      fc.property(withToolCalls, fc.nat(), (messages, pick) => {
        const broken = dropResult(messages, pick);
        for (const { provider, model } of TARGETS) {
          const codes = violations(broken, provider, model).map((v) => v.code);
          expect(codes).toContain('unanswered_tool_call');
        }
      }),
      { numRuns: 100 },
    );
  });

  it('catches a tool result moved before its call for every provider', () => {
    fc.assert(
      fc.property(withToolCalls, fc.nat(), (messages, pick) => {
        const broken = resultBeforeCall(messages, pick);
        for (const { provider, model } of TARGETS) {
          expect(violations(broken, provider, model).length).toBeGreaterThan(0);
        }
      }),
      { numRuns: 100 },
    );
  });

  it('catches a tool result answered too late for every provider', () => {
    fc.assert(
      fc.property(withToolCalls, fc.nat(), (messages, pick) => {
        const broken = resultTooLate(messages, pick);
        fc.pre(broken !== null);
        for (const { provider, model } of TARGETS) {
          const codes = violations(broken ?? [], provider, model).map((v) => v.code);
          expect(codes).toContain('unanswered_tool_call');
        }
      }),
      { numRuns: 100 },
    );
  });

  it('catches a tool result dropped from the encoded body itself', () => {
    fc.assert(
      fc.property(withToolCalls, (messages) => {
        const chat = encode('openai-chat', messages, { model: 'gpt-4o' });
        const toolAt = chat.messages.findIndex((m) => m.role === 'tool');
        chat.messages.splice(toolAt, 1);
        expect(checkBody('openai-chat', chat).map((v) => v.code)).toContain('unanswered_tool_call');

        const responses = encode('openai-responses', messages, { model: 'gpt-4.1' });
        const outputAt = responses.input.findIndex((i) => i.type === 'function_call_output');
        responses.input.splice(outputAt, 1);
        expect(checkBody('openai-responses', responses).map((v) => v.code)).toContain(
          'unanswered_tool_call',
        );
      }),
      { numRuns: 50 },
    );
  });
});
