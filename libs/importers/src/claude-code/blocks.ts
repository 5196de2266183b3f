/** Claude Code message content → Arbor blocks, each with its line; what cannot be kept is noted. */
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

const image = (b: Json): Block | null => {
  const source = isJson(b.source) ? b.source : null;
  if (source === null || source.type !== 'base64') return null;
  return imageBlock(source.media_type, source.data);
};

const block = (raw: unknown, line: number, notes: Notes): Block[] => {
  const b = isJson(raw) ? raw : {};
  switch (b.type) {
    case 'text':
      return textBlock(b.text, line, notes);
    case 'thinking':
      if (typeof b.signature === 'string' && b.signature !== '' && typeof b.thinking === 'string')
        return [{ type: 'thinking', thinking: b.thinking, signature: b.signature }];
      notes.skip(line, 'thinking block without signature (providers reject it)');
      return [];
    case 'redacted_thinking':
      if (typeof b.data === 'string' && b.data !== '')
        return [{ type: 'redacted_thinking', data: b.data }];
      notes.skip(line, 'redacted_thinking block without data');
      return [];
    case 'tool_use':
      return [
        {
          type: 'tool_use',
          id: String(b.id),
          name: String(b.name),
          input: toolInput(b.input, line, notes),
        },
      ];
    case 'tool_result':
      return [
        {
          type: 'tool_result',
          tool_use_id: String(b.tool_use_id),
          content: toolResultContent(b.content, line, notes, image),
          ...(typeof b.is_error === 'boolean' ? { is_error: b.is_error } : {}),
        },
      ];
    case 'image': {
      const img = image(b);
      if (img !== null) return [img];
      notes.change(line, 'image that is not base64 kept as text');
      return [asText(raw)];
    }
    default:
      notes.change(line, `${String(b.type)} block kept as text`);
      return [asText(raw)];
  }
};

export const claudeCodeItems = contentItems(block);
