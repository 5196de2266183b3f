/** Block helpers shared by the format adapters. */
import {
  type Block,
  type ImageMediaType,
  type TextBlock,
  type ToolResultContentBlock,
  type Usage,
} from '@arbor/domain';
import { type Item } from '../types';
import { type Notes } from './notes';

export type Json = Record<string, unknown>;

export const isJson = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** An unknown block kept readable rather than lost: its JSON as text. */
export const asText = (raw: unknown): TextBlock => ({ type: 'text', text: JSON.stringify(raw) });

export const toolInput = (v: unknown, line: number, notes: Notes): Record<string, unknown> => {
  if (isJson(v)) return v;
  if (v === undefined || v === null) return {};
  notes.change(line, 'tool_use input that is not an object wrapped as {"input": ...}');
  return { input: v };
};

export const textBlock = (text: unknown, line: number, notes: Notes): TextBlock[] => {
  if (typeof text === 'string' && text !== '') return [{ type: 'text', text }];
  notes.skip(line, 'empty text block');
  return [];
};

export const imageBlock = (mediaType: unknown, data: unknown): Block => ({
  type: 'image',
  source: {
    type: 'base64',
    media_type: String(mediaType) as ImageMediaType, // checked by the domain's parser
    data: String(data),
  },
});

export const toolResultContent = (
  content: unknown,
  line: number,
  notes: Notes,
  image: (raw: Json) => Block | null,
): string | ToolResultContentBlock[] => {
  if (typeof content === 'string') return content;
  if (content === undefined || content === null) return '';
  if (!Array.isArray(content)) {
    notes.change(line, 'tool result content that is not text or blocks kept as text');
    return JSON.stringify(content);
  }
  const out: ToolResultContentBlock[] = [];
  for (const raw of content) {
    const b = isJson(raw) ? raw : {};
    if (b.type === 'text') {
      if (typeof b.text === 'string' && b.text !== '') out.push({ type: 'text', text: b.text });
      else notes.skip(line, 'empty text block in a tool result');
      continue;
    }
    const img = b.type === 'image' ? image(b) : null;
    if (img !== null && img.type === 'image') {
      out.push(img);
      continue;
    }
    notes.change(line, `${String(b.type)} block in a tool result kept as text`);
    out.push(asText(raw));
  }
  return out;
};

/** Provider-measured usage under Arbor's (Anthropic's) names; undefined when nothing is known. */
export const usageOf = (pairs: [keyof Usage, unknown][]): Usage | undefined => {
  const out: Usage = {};
  for (const [k, v] of pairs)
    if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) out[k] = v;
  return Object.keys(out).length > 0 ? out : undefined;
};

export const contentItems =
  (block: (raw: unknown, line: number, notes: Notes) => Block[]) =>
  (content: unknown, line: number, notes: Notes): Item[] => {
    if (typeof content === 'string')
      return textBlock(content, line, notes).map((b) => ({ block: b, line }));
    if (!Array.isArray(content)) {
      notes.skip(line, 'message content is neither text nor blocks');
      return [];
    }
    return content.flatMap((raw) => block(raw, line, notes).map((b) => ({ block: b, line })));
  };
