/**
 * Neutral messages → the plain text snapshot pages are rendered from (and a summary could be
 * read from). Deterministic; one message at a time, so a run's length is the sum of its
 * messages' lengths (the snapshot planner counts pages without serializing twice).
 * Role markers head each message; tool inputs, outputs and thinking are truncated head + tail.
 * (Kept here until @arbor/snapshots publishes its serializer; `AssembleInput.serialize`
 * overrides it.)
 */
import type { Block, Message } from '@arbor/domain/messages';
import { readImageSize } from '../tokens/image-size';

export const TOOL_TEXT_LIMIT = 4_000;
export const THINKING_LIMIT = 2_000;
export const MESSAGE_SEPARATOR = '\n';

/** `text` cut to `limit` characters, keeping its head and tail around a marker. */
export function truncateMiddle(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const keep = Math.max(0, limit - 40);
  const head = Math.ceil(keep / 2);
  const tail = keep - head;
  const omitted = text.length - head - tail;
  return `${text.slice(0, head)}\n… [${omitted} characters omitted] …\n${text.slice(text.length - tail)}`;
}

function imageLine(block: Extract<Block, { type: 'image' }>): string {
  const size = readImageSize(block.source.data);
  return `[image ${block.source.media_type}${size ? ` ${size.width}×${size.height}` : ''}]`;
}

function blockLines(block: Block, names: ReadonlyMap<string, string>): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
      return imageLine(block);
    case 'thinking':
      return `[thinking] ${truncateMiddle(block.thinking, THINKING_LIMIT)}`;
    case 'redacted_thinking':
      return '[thinking redacted]';
    case 'tool_use':
      return `→ ${block.name}(${truncateMiddle(JSON.stringify(block.input ?? {}), TOOL_TEXT_LIMIT)}) [${block.id}]`;
    case 'tool_result': {
      const name = names.get(block.tool_use_id) ?? 'tool';
      const parts =
        typeof block.content === 'string'
          ? [block.content]
          : block.content.map((b) => (b.type === 'text' ? b.text : imageLine(b)));
      const body = truncateMiddle(parts.join('\n'), TOOL_TEXT_LIMIT);
      return `← ${name} [${block.tool_use_id}]${block.is_error ? ' (error)' : ''}:\n${body}`;
    }
  }
}

export function serializeMessage(message: Message, names: ReadonlyMap<string, string>): string {
  const lines = message.content.map((b) => blockLines(b, names)).filter((l) => l.trim() !== '');
  return `── ${message.role} · ${message.id} ──\n${lines.join('\n')}`;
}

/** Tool names by call id, over the given messages. */
export function toolNames(messages: readonly Message[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const m of messages)
    for (const b of m.content) if (b.type === 'tool_use') names.set(b.id, b.name);
  return names;
}

export function serializeMessages(messages: readonly Message[]): string {
  const names = toolNames(messages);
  return messages.map((m) => serializeMessage(m, names)).join(MESSAGE_SEPARATOR);
}
