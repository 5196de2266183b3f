/** Codex `ResponseItem` payloads (OpenAI Responses API items) → Arbor blocks, each with its line. */
import { type Block, type ToolResultContentBlock } from '@arbor/domain';
import { asText, imageBlock, isJson, type Json, textBlock, toolInput } from '../core/blocks';
import { type Notes } from '../core/notes';
import { type Item } from '../types';

const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

export const imageFromUrl = (url: unknown): Block | null => {
  if (typeof url !== 'string') return null;
  const m = DATA_URL.exec(url);
  return m === null ? null : imageBlock(m[1], m[2]);
};

const part = (raw: unknown, line: number, notes: Notes): Block[] => {
  const p = isJson(raw) ? raw : {};
  switch (p.type) {
    case 'input_text':
    case 'output_text':
    case 'text':
      return textBlock(p.text, line, notes);
    case 'input_image': {
      const img = imageFromUrl(p.image_url);
      if (img !== null) return [img];
      notes.change(line, 'input_image that is not a data URL kept as text');
      return [asText(raw)];
    }
    case 'refusal':
      notes.change(line, 'refusal kept as text');
      return textBlock(p.refusal, line, notes);
    default:
      notes.change(line, `${String(p.type)} content part kept as text`);
      return [asText(raw)];
  }
};

export const messageItems = (content: unknown, line: number, notes: Notes): Item[] => {
  if (typeof content === 'string')
    return textBlock(content, line, notes).map((block) => ({ block, line }));
  if (!Array.isArray(content)) {
    notes.skip(line, 'message content is neither text nor parts');
    return [];
  }
  return content.flatMap((raw) => part(raw, line, notes).map((block) => ({ block, line })));
};

/** Function call arguments are JSON text; anything that is not a JSON object is wrapped. */
const argumentsOf = (raw: unknown, line: number, notes: Notes): Record<string, unknown> => {
  if (typeof raw !== 'string') return toolInput(raw, line, notes);
  try {
    return toolInput(JSON.parse(raw) as unknown, line, notes);
  } catch {
    notes.change(line, 'function call arguments that are not JSON wrapped as {"input": ...}');
    return { input: raw };
  }
};

export const toolCall = (p: Json, line: number, notes: Notes): Item[] => {
  const id = typeof p.call_id === 'string' ? p.call_id : typeof p.id === 'string' ? p.id : '';
  if (id === '') {
    notes.skip(line, `${String(p.type)} without call_id`);
    return [];
  }
  let name = String(p.name ?? p.type);
  let input: Record<string, unknown>;
  if (p.type === 'function_call') input = argumentsOf(p.arguments, line, notes);
  else if (p.type === 'custom_tool_call') {
    notes.change(line, 'custom tool call input (free-form text) kept as {"input": ...}');
    input = { input: p.input };
  } else {
    name = 'local_shell';
    input = toolInput(p.action, line, notes);
  }
  return [{ line, block: { type: 'tool_use', id, name, input } }];
};

export const toolOutput = (p: Json, line: number, notes: Notes): Item[] => {
  const id = String(p.call_id ?? '');
  let output = p.output;
  let isError: boolean | undefined;
  if (isJson(output)) {
    // older rollouts: `{ content, success }`
    if (output.success === false) isError = true;
    output = output.content ?? output.content_items ?? '';
  }
  let content: string | ToolResultContentBlock[];
  if (typeof output === 'string') content = output;
  else if (Array.isArray(output)) {
    content = [];
    for (const raw of output) {
      const b = isJson(raw) ? raw : {};
      if ((b.type === 'input_text' || b.type === 'output_text') && typeof b.text === 'string') {
        if (b.text !== '') content.push({ type: 'text', text: b.text });
        continue;
      }
      const img = b.type === 'input_image' ? imageFromUrl(b.image_url) : null;
      if (img !== null && img.type === 'image') content.push(img);
      else {
        notes.change(line, `${String(b.type)} part of a tool output kept as text`);
        content.push(asText(raw));
      }
    }
  } else {
    notes.change(line, 'tool output that is not text or parts kept as text');
    content = JSON.stringify(output ?? null);
  }
  return [
    {
      line,
      block: {
        type: 'tool_result',
        tool_use_id: id,
        content,
        ...(isError !== undefined ? { is_error: isError } : {}),
      },
    },
  ];
};
