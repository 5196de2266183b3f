/** Which earlier reasoning occupies the window, per provider and model (sources: README.md). */
import type { Message } from '@arbor/domain/messages';
import type { ProviderName } from '../types';

const CLAUDE_NAMED = /claude-(opus|sonnet|haiku)-(\d+)(?:[-.](\d{1,2})(?!\d))?/;
const CLAUDE_OLD = /claude-(\d+)(?:[-.](\d{1,2})(?!\d))?-(opus|sonnet|haiku)/;

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

export function keepsPriorReasoning(provider: ProviderName, model: string): boolean {
  if (provider === 'anthropic') return anthropicKeepsPriorThinking(model);
  return false; // OpenAI Responses drops earlier turns' reasoning; other targets send none
}

export function opensTurn(message: Pick<Message, 'role' | 'content'>): boolean {
  return message.role === 'user' && message.content.some((b) => b.type !== 'tool_result');
}

export function currentTurnStart(messages: readonly Pick<Message, 'role' | 'content'>[]): number {
  for (let i = messages.length - 1; i >= 0; i--) if (opensTurn(messages[i])) return i;
  return 0;
}
