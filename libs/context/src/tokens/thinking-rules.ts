/**
 * What each provider counts of the model's earlier reasoning, per model. Bodies still carry
 * every thinking block and reasoning item Arbor may send (byte for byte, signatures included:
 * the API wants them back, and strips what it does not keep); these rules only say which of
 * them occupy the window, so the ladder neither under- nor over-counts.
 *
 * Anthropic (https://platform.claude.com/docs/en/build-with-claude/context-windows, "The context
 * window with extended thinking", and the extended-thinking guide's thinking-block preservation
 * table, https://platform.claude.com/docs/en/build-with-claude/extended-thinking): thinking of
 * the current assistant turn — the tool-use loop since the last real user message — must be
 * passed back with its signature and counts. Thinking of earlier turns is stripped by the API
 * and not counted (`context_window = (input_tokens - previous_thinking_tokens) +
 * current_turn_tokens`) on Claude Opus 4.1 and earlier Opus, Sonnet 4.5 and earlier Sonnet,
 * every Haiku through Haiku 4.5 and every Claude 3 model; Opus 4.5 and later, Sonnet 4.6 and
 * later, and newer model lines keep all prior thinking blocks in context, billed as input
 * ("preserved thinking", https://platform.claude.com/docs/en/build-with-claude/preserved-thinking).
 *
 * OpenAI Responses (https://cookbook.openai.com/examples/responses_api/reasoning_items: "in a
 * multistep conversation, the reasoning tokens are discarded after each turn"; within a
 * function-call loop the reasoning items since the last user message are passed back and
 * used): reasoning items count only in the current turn, for every model.
 */
import type { Message } from '@arbor/domain/messages';
import type { ProviderName } from '../types';

const CLAUDE_NAMED = /claude-(opus|sonnet|haiku)-(\d+)(?:[-.](\d{1,2})(?!\d))?/;
const CLAUDE_OLD = /claude-(\d+)(?:[-.](\d{1,2})(?!\d))?-(opus|sonnet|haiku)/;

/** Whether an Anthropic model keeps thinking blocks of earlier turns in its context. */
export function anthropicKeepsPriorThinking(model: string): boolean {
  const name = model.toLowerCase();
  const old = CLAUDE_OLD.exec(name);
  if (old !== null || /claude-(instant|2)/.test(name)) return false; // Claude 3.x and older
  const named = CLAUDE_NAMED.exec(name);
  if (named === null) return /claude/.test(name); // a newer line (no class-version name): kept
  const major = Number(named[2]);
  const minor = named[3] === undefined ? 0 : Number(named[3]);
  const version = major + minor / 10;
  switch (named[1]) {
    case 'opus':
      return version >= 4.5;
    case 'sonnet':
      return version >= 4.6;
    default:
      return version >= 5; // Haiku: every model through 4.5 keeps only the last turn
  }
}

/** Whether earlier turns' reasoning (thinking / reasoning items) counts for this target. */
export function keepsPriorReasoning(provider: ProviderName, model: string): boolean {
  if (provider === 'anthropic') return anthropicKeepsPriorThinking(model);
  return false; // OpenAI Responses drops earlier turns' reasoning; other targets send none
}

/** A user message that opens a turn: anything but tool results (those continue a loop). */
export function opensTurn(message: Pick<Message, 'role' | 'content'>): boolean {
  return message.role === 'user' && message.content.some((b) => b.type !== 'tool_result');
}

/** Index of the message that opens the current turn (0 when none does). */
export function currentTurnStart(messages: readonly Pick<Message, 'role' | 'content'>[]): number {
  for (let i = messages.length - 1; i >= 0; i--) if (opensTurn(messages[i])) return i;
  return 0;
}
