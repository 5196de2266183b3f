/** Huge tool inputs, outputs and thinking keep head and tail (where errors and totals are). */
import type { Block, Message, ToolResultBlock } from '@arbor/domain/messages';

export interface SummarySerializeOptions {
  toolOutputMaxChars?: number;
  toolInputMaxChars?: number;
  thinkingMaxChars?: number;
}

const DEFAULTS: Required<SummarySerializeOptions> = {
  toolOutputMaxChars: 4000,
  toolInputMaxChars: 2000,
  thinkingMaxChars: 2000,
};

const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;

export function safeCut(text: string, index: number, forward = false): number {
  if (index <= 0 || index >= text.length) return Math.max(0, Math.min(index, text.length));
  if (!isHighSurrogate(text.charCodeAt(index - 1))) return index;
  return forward ? index + 1 : index - 1;
}

export function truncateMiddle(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const headEnd = safeCut(text, Math.ceil(maxChars / 2));
  const tailStart = safeCut(text, text.length - Math.floor(maxChars / 2), true);
  const omitted = tailStart - headEnd;
  return `${text.slice(0, headEnd)}\n[… ${omitted} characters omitted …]\n${text.slice(tailStart)}`;
}

function jsonText(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function resultText(block: ToolResultBlock): string {
  if (typeof block.content === 'string') return block.content;
  return block.content.map((part) => (part.type === 'text' ? part.text : '[image]')).join('\n');
}

function blockText(
  block: Block,
  toolNames: Map<string, string>,
  options: Required<SummarySerializeOptions>,
): string | undefined {
  switch (block.type) {
    case 'text':
      return block.text.trim() === '' ? undefined : block.text;
    case 'image':
      return '[image]';
    case 'thinking':
      return block.thinking.trim() === ''
        ? undefined
        : `[thinking]\n${truncateMiddle(block.thinking, options.thinkingMaxChars)}`;
    case 'redacted_thinking':
      return undefined;
    case 'tool_use':
      toolNames.set(block.id, block.name);
      return (
        `[tool call ${block.name} id=${block.id}]\n` +
        truncateMiddle(jsonText(block.input), options.toolInputMaxChars)
      );
    case 'tool_result': {
      const name = toolNames.get(block.tool_use_id) ?? 'unknown tool';
      const label = block.is_error ? 'tool error' : 'tool result';
      const output = truncateMiddle(resultText(block), options.toolOutputMaxChars);
      return `[${label} ${name} id=${block.tool_use_id}]\n${output === '' ? '(no output)' : output}`;
    }
  }
}

function marker(message: Message): string {
  return message.pinned ? `[${message.role}, pinned]` : `[${message.role}]`;
}

export function serializeForSummary(
  messages: readonly Message[],
  options: SummarySerializeOptions = {},
): string[] {
  const resolved = { ...DEFAULTS, ...options };
  const toolNames = new Map<string, string>();
  const segments: string[] = [];
  for (const message of messages) {
    const parts = message.content
      .map((block) => blockText(block, toolNames, resolved))
      .filter((part): part is string => part !== undefined);
    if (parts.length > 0) segments.push(`${marker(message)}\n${parts.join('\n')}`);
  }
  return segments;
}
