// New decisions use @arbor/snapshots' serializer; the first one stays only for decisions recorded
// without `textFormat`, so their pages render from the same text (and hash) they were decided on.
import type { SnapshotDecision } from '@arbor/domain/compaction';
import { type Block, imageSourceLabel, type Message } from '@arbor/domain/messages';
import { serializeMessages as serializeForPages } from '@arbor/snapshots/serialize';
import { readImageSize } from '../tokens/image-size';

/** The `textFormat` new snapshot decisions record: `@arbor/snapshots` `serializeMessages`. */
export const SNAPSHOT_TEXT_FORMAT = 'snapshots/1';

export function serializeMessages(messages: readonly Message[]): string {
  return serializeForPages(messages);
}

export function serializerFor(
  decision: Pick<SnapshotDecision, 'textFormat'>,
): (messages: readonly Message[]) => string {
  return decision.textFormat === undefined ? serializeMessagesLegacy : serializeMessages;
}

export const TOOL_TEXT_LIMIT = 4_000;
export const THINKING_LIMIT = 2_000;
export const MESSAGE_SEPARATOR = '\n';

export function truncateMiddle(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const keep = Math.max(0, limit - 40);
  const head = Math.ceil(keep / 2);
  const tail = keep - head;
  const omitted = text.length - head - tail;
  return `${text.slice(0, head)}\n… [${omitted} characters omitted] …\n${text.slice(text.length - tail)}`;
}

function imageLine(block: Extract<Block, { type: 'image' }>): string {
  if (block.source.type !== 'base64') return `[image ${imageSourceLabel(block.source)}]`;
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
    case 'reasoning':
      return `[reasoning] ${truncateMiddle(block.summary.map((s) => s.text).join('\n'), THINKING_LIMIT)}`;
    case 'provider':
      return `[${block.provider} ${String(block.item['type'])} block]`;
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

export function serializeMessageLegacy(
  message: Message,
  names: ReadonlyMap<string, string>,
): string {
  const lines = message.content.map((b) => blockLines(b, names)).filter((l) => l.trim() !== '');
  return `── ${message.role} · ${message.id} ──\n${lines.join('\n')}`;
}

export function toolNames(messages: readonly Message[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const m of messages)
    for (const b of m.content) if (b.type === 'tool_use') names.set(b.id, b.name);
  return names;
}

export function serializeMessagesLegacy(messages: readonly Message[]): string {
  const names = toolNames(messages);
  return messages.map((m) => serializeMessageLegacy(m, names)).join(MESSAGE_SEPARATOR);
}
