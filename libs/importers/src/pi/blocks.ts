import { type Block } from '@arbor/domain';
import {
  asText,
  contentItems,
  imageBlock,
  isJson,
  type Json,
  textBlock,
  toolInput,
  toolResultContent,
} from '../core/blocks';
import { type Notes } from '../core/notes';
import { type Item } from '../types';

const image = (b: Json): Block | null =>
  typeof b.data === 'string' ? imageBlock(b.mimeType, b.data) : null;

const block = (raw: unknown, line: number, notes: Notes): Block[] => {
  const b = isJson(raw) ? raw : {};
  switch (b.type) {
    case 'text':
      return textBlock(b.text, line, notes);
    case 'image': {
      const img = image(b);
      if (img !== null) return [img];
      notes.change(line, 'image without data kept as text');
      return [asText(raw)];
    }
    case 'thinking': {
      const sig = typeof b.thinkingSignature === 'string' ? b.thinkingSignature : '';
      if (b.redacted === true && sig !== '') return [{ type: 'redacted_thinking', data: sig }];
      if (sig !== '' && typeof b.thinking === 'string')
        return [{ type: 'thinking', thinking: b.thinking, signature: sig }];
      notes.skip(line, 'thinking block without signature (providers reject it)');
      return [];
    }
    case 'toolCall':
      return [
        {
          type: 'tool_use',
          id: String(b.id),
          name: String(b.name),
          input: toolInput(b.arguments, line, notes),
        },
      ];
    default:
      notes.change(line, `${String(b.type)} block kept as text`);
      return [asText(raw)];
  }
};

export const piItems = contentItems(block);

export const piToolResult = (m: Json, line: number, notes: Notes): Item[] => [
  {
    line,
    block: {
      type: 'tool_result',
      tool_use_id: String(m.toolCallId),
      content: toolResultContent(m.content, line, notes, image),
      ...(typeof m.isError === 'boolean' ? { is_error: m.isError } : {}),
    },
  },
];

/** What pi sends the model for a `!command` the user ran: the command and its output. */
export const bashText = (m: Json): string => {
  const parts = [`$ ${String(m.command ?? '')}`];
  parts.push(typeof m.output === 'string' && m.output !== '' ? m.output : '(no output)');
  if (m.cancelled === true) parts.push('(cancelled)');
  else if (typeof m.exitCode === 'number' && m.exitCode !== 0)
    parts.push(`(exit code ${m.exitCode})`);
  return parts.join('\n');
};
