/** Messages → the text pages are rendered from; deterministic and additive (format: README.md). */
import type {
  Block,
  ImageBlock,
  Message,
  ToolResultBlock,
  ToolUseBlock,
} from '@arbor/domain/messages';
import { imageSourceLabel } from '@arbor/domain/messages';
import { readImageSize } from './image-size';

export interface HeadTail {
  head: number;
  tail: number;
}

export interface SerializeOptions {
  toolInput: HeadTail;
  toolOutput: HeadTail;
  thinking: 'omit' | 'mark' | 'include';
  thinkingLimit: HeadTail;
  tabWidth: number;
  collapseRuns: number;
  /** Tool call ids: left out (results name their call's tool instead) or written in full. */
  toolIds: 'omit' | 'full';
}

export type ToolNames = ReadonlyMap<string, string>;

export const DEFAULT_SERIALIZE_OPTIONS: Readonly<SerializeOptions> = Object.freeze({
  toolInput: { head: 1_500, tail: 500 },
  toolOutput: { head: 3_000, tail: 1_000 },
  thinking: 'mark',
  thinkingLimit: { head: 1_000, tail: 500 },
  tabWidth: 2,
  collapseRuns: 8,
  toolIds: 'omit',
});

const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff;

export function elisionMarker(chars: number): string {
  return `… [${chars} chars elided] …`;
}

/** Head and tail around an elision marker; never splits a surrogate pair. */
export function truncateMiddle(text: string, { head, tail }: HeadTail): string {
  if (text.length <= head + tail) return text;
  let h = Math.max(0, head);
  if (h > 0 && isHighSurrogate(text.charCodeAt(h - 1))) h -= 1;
  let t = text.length - Math.max(0, tail);
  if (t < text.length && isLowSurrogate(text.charCodeAt(t))) t += 1;
  const elided = t - h;
  return `${text.slice(0, h)}\n${elisionMarker(elided)}\n${text.slice(t)}`;
}

// Every C0 control but the line feed, and DEL: written in caret notation.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_CHARS = new RegExp('[\\u0000-\\u0008\\u000b-\\u001f\\u007f]', 'g');

export function normalizeText(text: string, tabWidth: number): string {
  const tab = ' '.repeat(Math.max(0, tabWidth));
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/\t/g, tab)
    .replace(CONTROL_CHARS, (c) =>
      c === '\u007f' ? '^?' : `^${String.fromCharCode(c.charCodeAt(0) + 64)}`,
    );
}

export function collapseRuns(text: string, minRun: number): string {
  if (minRun < 2) return text;
  const re = new RegExp(`([^\\s\\w])\\1{${minRun - 1},}`, 'g');
  return text.replace(re, (run: string, c: string) => `[${c}×${run.length}]`);
}

function clean(text: string, o: SerializeOptions): string {
  return collapseRuns(normalizeText(text, o.tabWidth), o.collapseRuns);
}

export function imageMarker(block: ImageBlock): string {
  if (block.source.type !== 'base64') return `[image: ${imageSourceLabel(block.source)}]`;
  const size = readImageSize(block.source.data);
  const dims = size ? `${size.width}x${size.height}` : '?x?';
  return `[image: ${block.source.media_type}, ${dims}]`;
}

function toolUse(block: ToolUseBlock, o: SerializeOptions): string {
  const json = JSON.stringify(block.input ?? null) ?? 'null';
  const tag = o.toolIds === 'full' ? `${block.name} ${block.id}` : block.name;
  return `[tool_use ${tag}] ${clean(truncateMiddle(json, o.toolInput), o)}`;
}

function toolResult(block: ToolResultBlock, o: SerializeOptions, names: ToolNames): string {
  const parts =
    typeof block.content === 'string'
      ? [block.content]
      : block.content.map((b) => (b.type === 'text' ? b.text : imageMarker(b)));
  const body = clean(truncateMiddle(parts.join('\n'), o.toolOutput), o);
  const name = o.toolIds === 'full' ? block.tool_use_id : names.get(block.tool_use_id);
  const marker = ['tool_result', name, block.is_error ? 'error' : undefined].filter(Boolean);
  return `[${marker.join(' ')}] ${body}`;
}

function serializeBlock(block: Block, o: SerializeOptions, names: ToolNames): string | null {
  switch (block.type) {
    case 'text':
      return clean(block.text, o);
    case 'image':
      return imageMarker(block);
    case 'tool_use':
      return toolUse(block, o);
    case 'tool_result':
      return toolResult(block, o, names);
    case 'thinking':
      if (o.thinking === 'omit') return null;
      if (o.thinking === 'mark') return `[thinking: ${block.thinking.length} chars]`;
      return `[thinking] ${clean(truncateMiddle(block.thinking, o.thinkingLimit), o)}`;
    case 'redacted_thinking':
      return o.thinking === 'omit' ? null : '[redacted_thinking]';
    case 'reasoning':
      if (o.thinking === 'omit') return null;
      return `[reasoning] ${clean(truncateMiddle(block.summary.map((s) => s.text).join('\n'), o.thinkingLimit), o)}`;
    case 'provider':
      return `[${block.provider} ${String(block.item['type'])}]`;
  }
}

function withDefaults(options: Partial<SerializeOptions> = {}): SerializeOptions {
  return { ...DEFAULT_SERIALIZE_OPTIONS, ...options };
}

export function toolNames(messages: readonly Pick<Message, 'content'>[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const m of messages)
    for (const b of m.content) if (b.type === 'tool_use') names.set(b.id, b.name);
  return names;
}

export function serializeMessage(
  message: Pick<Message, 'role' | 'content'>,
  options?: Partial<SerializeOptions>,
  names: ToolNames = toolNames([message]),
): string {
  const o = withDefaults(options);
  const blocks = message.content
    .map((b) => serializeBlock(b, o, names))
    .filter((s): s is string => s !== null);
  return blocks.length === 0 ? `[${message.role}]` : `[${message.role}] ${blocks.join('\n')}`;
}

export function serializeMessages(
  messages: readonly Pick<Message, 'role' | 'content'>[],
  options?: Partial<SerializeOptions>,
): string {
  const o = withDefaults(options);
  const names = toolNames(messages);
  return messages.map((m) => serializeMessage(m, o, names)).join('\n');
}
