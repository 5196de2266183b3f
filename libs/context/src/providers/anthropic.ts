/** Anthropic Messages API: the neutral model is Anthropic's, so blocks mostly pass through. */
import type { MessageCreateParamsNonStreaming as BetaMessageCreateParams } from '@anthropic-ai/sdk/resources/beta/messages/messages';
import type { MessageCreateParamsNonStreaming, Tool } from '@anthropic-ai/sdk/resources/messages';
import type { Base64ImageSource, Block, ImageSource, Message } from '@arbor/domain/messages';
import { BODY_ENCODING, type EncodeOptions, type JsonSchema } from '../types';
import {
  collectSystem,
  isBlankText,
  originOf,
  flatMapped,
  sendsProviderBlock,
  UnsupportedImageSourceError,
} from './shared';

function anthropicSource(source: ImageSource): AnthropicImageSource {
  if (source.type === 'base64') return source;
  if (source.type === 'url') return { type: 'url', url: source.url };
  if (source.provider === 'anthropic') return { type: 'file', file_id: source.file_id };
  throw new UnsupportedImageSourceError(
    'anthropic',
    '',
    'source',
    'file',
    `a ${source.provider} file id cannot be sent to anthropic`,
  );
}

export interface AnthropicCacheControl {
  type: 'ephemeral';
}
export interface AnthropicTextBlock {
  type: 'text';
  text: string;
  cache_control?: AnthropicCacheControl;
}
export type AnthropicImageSource =
  Base64ImageSource | { type: 'url'; url: string } | { type: 'file'; file_id: string };
export interface AnthropicImageBlock {
  type: 'image';
  source: AnthropicImageSource;
  cache_control?: AnthropicCacheControl;
}
export interface AnthropicToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: unknown;
  cache_control?: AnthropicCacheControl;
}
export interface AnthropicToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content?: string | (AnthropicTextBlock | AnthropicImageBlock)[];
  is_error?: boolean;
  cache_control?: AnthropicCacheControl;
}
export interface AnthropicThinkingBlock {
  type: 'thinking';
  thinking: string;
  signature: string;
}
export interface AnthropicRedactedThinkingBlock {
  type: 'redacted_thinking';
  data: string;
}
export interface AnthropicOpaqueBlock {
  type: 'compaction';
  content?: string | null;
  encrypted_content?: string | null;
}
export type AnthropicContentBlock =
  | AnthropicOpaqueBlock
  | AnthropicTextBlock
  | AnthropicImageBlock
  | AnthropicToolUseBlock
  | AnthropicToolResultBlock
  | AnthropicThinkingBlock
  | AnthropicRedactedThinkingBlock;

export interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: AnthropicContentBlock[];
}
export interface AnthropicTool {
  name: string;
  description?: string;
  input_schema: Tool.InputSchema;
  cache_control?: AnthropicCacheControl;
}
export interface AnthropicBody {
  model: string;
  max_tokens: number;
  system?: string | AnthropicTextBlock[];
  messages: AnthropicMessage[];
  tools?: AnthropicTool[];
}

/** Anthropic requires `max_tokens`; used when the caller gives none. */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;

function isThinking(block: AnthropicContentBlock): boolean {
  return block.type === 'thinking' || block.type === 'redacted_thinking';
}

function toolResultContent(
  content: string | Block[],
): string | (AnthropicTextBlock | AnthropicImageBlock)[] | undefined {
  if (typeof content === 'string') return content === '' ? undefined : content;
  const blocks: (AnthropicTextBlock | AnthropicImageBlock)[] = [];
  for (const b of content) {
    if (b.type === 'text' && !isBlankText(b.text)) blocks.push({ type: 'text', text: b.text });
    if (b.type === 'image') blocks.push({ type: 'image', source: anthropicSource(b.source) });
  }
  return blocks.length > 0 ? blocks : undefined;
}

function encodeBlock(
  block: Block,
  keepThinking: boolean,
  sendOpaque: (block: Extract<Block, { type: 'provider' }>) => boolean,
): AnthropicContentBlock[] {
  switch (block.type) {
    case 'text':
      return isBlankText(block.text) ? [] : [{ type: 'text', text: block.text }];
    case 'image':
      return [{ type: 'image', source: anthropicSource(block.source) }];
    case 'tool_use':
      return [{ type: 'tool_use', id: block.id, name: block.name, input: block.input }];
    case 'tool_result': {
      const content = toolResultContent(block.content);
      return [
        {
          type: 'tool_result',
          tool_use_id: block.tool_use_id,
          ...(content !== undefined ? { content } : {}),
          ...(block.is_error ? { is_error: true } : {}),
        },
      ];
    }
    case 'thinking':
      return keepThinking
        ? [{ type: 'thinking', thinking: block.thinking, signature: block.signature }]
        : [];
    case 'redacted_thinking':
      return keepThinking ? [{ type: 'redacted_thinking', data: block.data }] : [];
    case 'reasoning':
      return []; // OpenAI's: Anthropic cannot read it
    case 'provider':
      // Byte for byte: the stored item is the block (its key order kept by JSON.stringify).
      return sendOpaque(block) ? [block.item as unknown as AnthropicOpaqueBlock] : [];
  }
}

function encodeMessage(message: Message, model: string): AnthropicMessage | null {
  const origin = originOf(message);
  const keepThinking = origin === 'anthropic' || origin === 'unknown';
  const sendOpaque = (b: Extract<Block, { type: 'provider' }>) =>
    sendsProviderBlock(b, message, 'anthropic', model);
  const content = flatMapped(message.content, (b) => encodeBlock(b, keepThinking, sendOpaque));
  if (content.length === 0 || message.role === 'system') return null;
  return { role: message.role, content };
}

/** Appends `next` to `into` (same role): thinking may only extend a leading thinking run. */
function mergeInto(into: AnthropicMessage, next: AnthropicMessage): void {
  for (const block of next.content) {
    if (isThinking(block) && !into.content.every(isThinking)) continue;
    into.content.push(block);
  }
}

function toolResultsFirst(message: AnthropicMessage): AnthropicMessage {
  if (message.role !== 'user') return message;
  const results = message.content.filter((b) => b.type === 'tool_result');
  const rest = message.content.filter((b) => b.type !== 'tool_result');
  return { role: 'user', content: [...results, ...rest] };
}

export function encodeAnthropicMessages(
  messages: readonly Message[],
  model = '',
): AnthropicMessage[] {
  const turns: AnthropicMessage[] = [];
  for (const message of messages) {
    const encoded = encodeMessage(message, model);
    if (!encoded) continue;
    const last = turns[turns.length - 1];
    if (last && last.role === encoded.role) mergeInto(last, encoded);
    else turns.push(encoded);
  }
  return turns.filter((t) => t.content.length > 0).map(toolResultsFirst);
}

const isObjectSchema = (schema: JsonSchema): schema is Tool.InputSchema => schema.type === 'object';

/** The API wants `input_schema.type` "object"; encoding 1 sent the schema as given. */
function inputSchema(schema: JsonSchema, legacy: boolean): Tool.InputSchema {
  if (isObjectSchema(schema)) return schema;
  return legacy ? (schema as Tool.InputSchema) : { ...schema, type: 'object' };
}

export function encodeAnthropic(
  messages: readonly Message[],
  options: EncodeOptions,
): AnthropicBody {
  const system = collectSystem(options.system, messages);
  const tools = (options.tools ?? []).map((t): AnthropicTool => ({
    name: t.name,
    ...(t.description !== undefined ? { description: t.description } : {}),
    input_schema: inputSchema(t.input_schema, (options.encoding ?? BODY_ENCODING) < 2),
  }));
  return {
    model: options.model,
    max_tokens: options.maxTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
    ...(system.length > 0 ? { system: system.join('\n\n') } : {}),
    messages: encodeAnthropicMessages(messages, options.model),
    ...(tools.length > 0 ? { tools } : {}),
  } satisfies MessageCreateParamsNonStreaming | BetaMessageCreateParams;
}
