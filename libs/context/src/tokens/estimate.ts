/** Offline estimates, to be multiplied by the calibration factor (./calibration.ts). */
import type { Block, Message, ProviderBlock, ReasoningBlock } from '@arbor/domain/messages';
import type { ProviderName, ToolDefinition } from '../types';
import { readImageSize } from './image-size';
import { type ImageDetail, imageTokens } from './image-tokens';
import { type TextEncodingName, countTextTokens } from './text';

export interface EstimateOptions {
  provider: ProviderName;
  model: string;
  encoding?: TextEncodingName;
}

/** Role markers and separators around each message (OpenAI's cookbook counts 3–4). */
export const MESSAGE_OVERHEAD_TOKENS = 4;
export const TOOL_BLOCK_OVERHEAD_TOKENS = 3;

function text(value: string, options: EstimateOptions): number {
  return countTextTokens(value, options.encoding);
}

function image(data: string, options: EstimateOptions, detail?: ImageDetail): number {
  return imageTokens(readImageSize(data), options.provider, options.model, detail);
}

/** Ciphertext the model reads back as its own tokens: about one per four decoded bytes. */
export function encryptedTokens(encrypted: string | undefined): number {
  return encrypted === undefined ? 0 : Math.ceil((encrypted.length * 3) / 4 / 4);
}

export function reasoningTokens(block: ReasoningBlock, options: EstimateOptions): number {
  let tokens = TOOL_BLOCK_OVERHEAD_TOKENS + text(block.id ?? '', options);
  for (const part of block.summary) tokens += text(part.text, options);
  return tokens + encryptedTokens(block.encrypted_content);
}

export const providerBlockTarget = (block: ProviderBlock): ProviderName =>
  block.provider === 'anthropic' ? 'anthropic' : 'openai-responses';

export function providerBlockTokens(block: ProviderBlock, options: EstimateOptions): number {
  if (options.provider !== providerBlockTarget(block)) return 0;
  const item = block.item;
  const content = item['content'];
  const encrypted = item['encrypted_content'];
  if (typeof content === 'string') return TOOL_BLOCK_OVERHEAD_TOKENS + text(content, options);
  if (typeof encrypted === 'string') return TOOL_BLOCK_OVERHEAD_TOKENS + encryptedTokens(encrypted);
  return TOOL_BLOCK_OVERHEAD_TOKENS + text(JSON.stringify(item), options);
}

/** Thinking counts for Anthropic only: OpenAI encoders drop it, Gemini's signature is unbilled. */
export function estimateBlockTokens(block: Block, options: EstimateOptions): number {
  switch (block.type) {
    case 'text':
      return text(block.text, options);
    case 'image':
      return block.source.type === 'base64'
        ? image(block.source.data, options)
        : imageTokens(null, options.provider, options.model);
    case 'tool_use':
      return (
        TOOL_BLOCK_OVERHEAD_TOKENS +
        text(block.name, options) +
        text(JSON.stringify(block.input ?? {}), options)
      );
    case 'tool_result': {
      const content =
        typeof block.content === 'string'
          ? text(block.content, options)
          : block.content.reduce((sum, b) => sum + estimateBlockTokens(b, options), 0);
      return TOOL_BLOCK_OVERHEAD_TOKENS + content;
    }
    case 'thinking':
      return options.provider === 'anthropic' ? text(block.thinking, options) : 0;
    case 'redacted_thinking':
      return 0;
    case 'reasoning':
      return options.provider === 'openai-responses' ? reasoningTokens(block, options) : 0;
    case 'provider':
      return providerBlockTokens(block, options);
  }
}

export function estimateMessageTokens(
  message: Pick<Message, 'content'>,
  options: EstimateOptions,
): number {
  return (
    MESSAGE_OVERHEAD_TOKENS +
    message.content.reduce((sum, block) => sum + estimateBlockTokens(block, options), 0)
  );
}

export function estimateToolsTokens(
  tools: readonly ToolDefinition[],
  options: Omit<EstimateOptions, 'provider'> & { provider?: ProviderName },
): number {
  return tools.reduce(
    (sum, tool) =>
      sum + TOOL_BLOCK_OVERHEAD_TOKENS + countTextTokens(JSON.stringify(tool), options.encoding),
    0,
  );
}

const JSON_KEYS = new Set([
  'input',
  'args',
  'response',
  'input_schema',
  'parameters',
  'parametersJsonSchema',
]);
const OPAQUE_KEYS = new Set(['signature', 'thoughtSignature']);

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function dataUrlPayload(url: unknown): string | null {
  if (typeof url !== 'string') return null;
  const match = /^data:[^;,]+;base64,/.exec(url);
  return match ? url.slice(match[0].length) : null;
}

function imageNode(node: Record<string, unknown>): { data: string; detail?: ImageDetail } | null {
  const detailOf = (d: unknown): ImageDetail | undefined =>
    d === 'low' || d === 'high' || d === 'auto' ? d : undefined;
  if (node.type === 'image' && isRecord(node.source) && typeof node.source.data === 'string') {
    return { data: node.source.data };
  }
  if (node.type === 'image_url' && isRecord(node.image_url)) {
    const data = dataUrlPayload(node.image_url.url);
    return data === null ? null : { data, detail: detailOf(node.image_url.detail) };
  }
  if (node.type === 'input_image') {
    const data = dataUrlPayload(node.image_url);
    return data === null ? null : { data, detail: detailOf(node.detail) };
  }
  if (isRecord(node.inlineData) && typeof node.inlineData.data === 'string') {
    return { data: node.inlineData.data };
  }
  return null;
}

function walk(value: unknown, options: EstimateOptions): number {
  if (typeof value === 'string') return text(value, options);
  if (typeof value === 'number' || typeof value === 'boolean') return 1;
  if (Array.isArray(value)) return value.reduce((sum: number, v) => sum + walk(v, options), 0);
  if (!isRecord(value)) return 0;
  const picture = imageNode(value);
  if (picture) return image(picture.data, options, picture.detail);
  if (value.type === 'redacted_thinking') return 0;
  let sum = 0;
  for (const [key, child] of Object.entries(value)) {
    if (OPAQUE_KEYS.has(key)) continue;
    sum += JSON_KEYS.has(key) ? text(JSON.stringify(child ?? {}), options) : walk(child, options);
  }
  return sum;
}

/** Anthropic strips earlier turns' thinking; only the turn in progress keeps it. */
function withoutStrippedThinking(messages: unknown[]): unknown[] {
  const isUserTurnStart = (m: unknown) =>
    isRecord(m) &&
    m.role === 'user' &&
    Array.isArray(m.content) &&
    m.content.some((b) => !isRecord(b) || b.type !== 'tool_result');
  let lastUser = -1;
  messages.forEach((m, i) => {
    if (isUserTurnStart(m)) lastUser = i;
  });
  return messages.map((m, i) =>
    i < lastUser && isRecord(m) && m.role === 'assistant' && Array.isArray(m.content)
      ? {
          ...m,
          content: m.content.filter(
            (b) => !isRecord(b) || (b.type !== 'thinking' && b.type !== 'redacted_thinking'),
          ),
        }
      : m,
  );
}

const CONTENT_KEYS = ['system', 'instructions', 'systemInstruction', 'tools'];
const MESSAGE_LIST_KEYS = ['messages', 'input', 'contents'];

export function estimateBodyTokens(body: object, options: EstimateOptions): number {
  const record = body as Record<string, unknown>;
  let sum = 0;
  for (const key of CONTENT_KEYS) sum += walk(record[key], options);
  for (const key of MESSAGE_LIST_KEYS) {
    const list = record[key];
    if (!Array.isArray(list)) continue;
    const items = options.provider === 'anthropic' ? withoutStrippedThinking(list) : list;
    sum += items.reduce((s: number, item) => s + MESSAGE_OVERHEAD_TOKENS + walk(item, options), 0);
  }
  return sum;
}
