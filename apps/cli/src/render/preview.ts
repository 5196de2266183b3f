/** One line saying what a message holds, for trees and lists. */
import { type Block, type Message } from '@arbor/domain';

const oneLine = (s: string): string => s.replace(/\s+/g, ' ').trim();

const blockPreview = (b: Block): string | null => {
  switch (b.type) {
    case 'text':
      return oneLine(b.text);
    case 'image':
      return '[image]';
    case 'tool_use':
      return `→ ${b.name}`;
    case 'tool_result':
      return null; // counted below
    case 'thinking':
    case 'redacted_thinking':
    case 'reasoning':
    case 'provider':
      return null;
  }
};

export const preview = (m: Pick<Message, 'content'>, width: number): string => {
  const results = m.content.filter((b) => b.type === 'tool_result').length;
  const parts = [
    ...(results > 0 ? [`← ${results} tool result${results > 1 ? 's' : ''}`] : []),
    ...m.content.map(blockPreview).filter((p): p is string => p !== null && p !== ''),
  ];
  const text = parts.join('  ');
  return text.length <= width ? text : `${text.slice(0, Math.max(0, width - 1))}…`;
};

export const roleLetter = (role: string): string =>
  role === 'assistant' ? 'A' : role === 'user' ? 'U' : 'S';
