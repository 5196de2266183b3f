/** One cached measurement per rendered message, so a message is tokenized once across calls. */
import { createHash } from 'node:crypto';
import type { ContextSections } from '@arbor/domain/compaction';
import type { Block, Message } from '@arbor/domain/messages';
import {
  estimateBlockTokens,
  estimateToolsTokens,
  MESSAGE_OVERHEAD_TOKENS,
  TOOL_BLOCK_OVERHEAD_TOKENS,
} from '../tokens/estimate';
import { base64ByteLength, readImageSize } from '../tokens/image-size';
import { imageTokens } from '../tokens/image-tokens';
import { countTextTokens } from '../tokens/text';
import { keepsPriorReasoning, opensTurn } from '../tokens/thinking-rules';
import type { ProviderName, ToolDefinition } from '../types';
import type { ItemStats, TokenCache } from './token-cache';
import type { ViewItem } from './view';

/** Framing per content block (type tags, keys) that a neutral estimate does not see. */
export const BLOCK_FRAMING_TOKENS = 1;

export interface MeasureContext {
  conversationId: string;
  provider: ProviderName;
  model: string;
  cache: TokenCache;
}

export const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

interface Tally {
  tokens: number;
  reasoningTokens: number;
  toolResultTokens: number;
  imageTokens: number;
  images: number;
  imageBytes: number;
  imageChars: number;
  maxImageBytes: number;
  maxImageBase64: number;
  maxImageSide: number;
}

function tallyImage(data: string, ctx: MeasureContext, t: Tally): number {
  const size = readImageSize(data);
  const tokens = imageTokens(size, ctx.provider, ctx.model);
  const bytes = base64ByteLength(data);
  t.images += 1;
  t.imageTokens += tokens;
  t.imageBytes += bytes;
  t.imageChars += data.length;
  t.maxImageBytes = Math.max(t.maxImageBytes, bytes);
  t.maxImageBase64 = Math.max(t.maxImageBase64, data.length);
  if (size) t.maxImageSide = Math.max(t.maxImageSide, size.width, size.height);
  return tokens;
}

/** Remote image: pixels unknown, so charged the most the provider's formula allows. */
function tallyRemoteImage(ctx: MeasureContext, t: Tally): number {
  const tokens = imageTokens(null, ctx.provider, ctx.model);
  t.images += 1;
  t.imageTokens += tokens;
  return tokens;
}

function toolOutputTokens(text: string, ctx: MeasureContext): number {
  return ctx.provider === 'gemini'
    ? countTextTokens(JSON.stringify({ output: text }))
    : countTextTokens(text);
}

function tallyBlock(block: Block, ctx: MeasureContext, t: Tally): void {
  t.tokens += BLOCK_FRAMING_TOKENS;
  switch (block.type) {
    case 'image':
      t.tokens +=
        block.source.type === 'base64'
          ? tallyImage(block.source.data, ctx, t)
          : tallyRemoteImage(ctx, t);
      return;
    case 'tool_use':
      // Ids are sent (and billed) too: Claude's `toolu_…` ids are ~15 tokens each.
      t.tokens += countTextTokens(block.id) + estimateBlockTokens(block, ctx);
      return;
    case 'tool_result': {
      const shell = TOOL_BLOCK_OVERHEAD_TOKENS + countTextTokens(block.tool_use_id);
      t.tokens += shell;
      t.toolResultTokens += shell;
      const parts = typeof block.content === 'string' ? [block.content] : block.content;
      for (const inner of parts) {
        if (typeof inner !== 'string' && inner.type === 'image') {
          t.tokens +=
            BLOCK_FRAMING_TOKENS +
            (inner.source.type === 'base64'
              ? tallyImage(inner.source.data, ctx, t)
              : tallyRemoteImage(ctx, t));
          continue;
        }
        const tokens =
          BLOCK_FRAMING_TOKENS +
          toolOutputTokens(typeof inner === 'string' ? inner : inner.text, ctx);
        t.tokens += tokens;
        t.toolResultTokens += tokens;
      }
      return;
    }
    case 'thinking':
    case 'redacted_thinking':
    case 'reasoning': {
      const tokens = estimateBlockTokens(block, ctx);
      t.tokens += tokens;
      t.reasoningTokens += tokens + BLOCK_FRAMING_TOKENS; // its framing goes with it
      return;
    }
    default:
      t.tokens += estimateBlockTokens(block, ctx);
  }
}

export function measureMessage(message: Message, ctx: MeasureContext): ItemStats {
  const t: Tally = {
    tokens: MESSAGE_OVERHEAD_TOKENS,
    reasoningTokens: 0,
    toolResultTokens: 0,
    imageTokens: 0,
    images: 0,
    imageBytes: 0,
    imageChars: 0,
    maxImageBytes: 0,
    maxImageBase64: 0,
    maxImageSide: 0,
  };
  for (const block of message.content) tallyBlock(block, ctx, t);
  const json = JSON.stringify({ role: message.role, content: message.content });
  // Spelled out, not spread: one object shape keeps the loop over thousands of entries fast.
  return {
    tokens: t.tokens,
    reasoningTokens: t.reasoningTokens,
    toolResultTokens: t.toolResultTokens,
    imageTokens: t.imageTokens,
    images: t.images,
    imageBytes: t.imageBytes,
    imageChars: t.imageChars,
    maxImageBytes: t.maxImageBytes,
    maxImageBase64: t.maxImageBase64,
    maxImageSide: t.maxImageSide,
    jsonBytes: json.length,
    digest: createHash('sha256').update(json).digest(),
  };
}

export const scopeName = (ctx: MeasureContext): string =>
  `${ctx.conversationId}|${ctx.provider}|${ctx.model}`;

export function itemStats(
  item: ViewItem,
  ctx: MeasureContext,
  scope: Map<string, ItemStats> = ctx.cache.scope(scopeName(ctx)),
): ItemStats {
  const cached = scope.get(item.key);
  if (cached !== undefined) return cached;
  const stats = measureMessage(item.message, ctx);
  scope.set(item.key, stats);
  return stats;
}

export function fixedTokens(
  ctx: MeasureContext,
  system: string | undefined,
  tools: readonly ToolDefinition[] | undefined,
): { system: number; tools: number } {
  const cachedCount = (kind: string, text: string, count: () => number): number => {
    const key = `${kind}|${ctx.provider}|${ctx.model}|${sha256(text)}`;
    const hit = ctx.cache.numbers.get(key);
    if (hit !== undefined) return hit;
    const value = count();
    ctx.cache.numbers.set(key, value);
    return value;
  };
  const sys =
    system === undefined || system.trim() === ''
      ? 0
      : cachedCount('sys', system, () => countTextTokens(system) + MESSAGE_OVERHEAD_TOKENS);
  const toolTokens =
    tools === undefined || tools.length === 0
      ? 0
      : cachedCount('tools', JSON.stringify(tools), () =>
          estimateToolsTokens(tools, { model: ctx.model, provider: ctx.provider }),
        );
  return { system: sys, tools: toolTokens };
}

export interface ViewMeasure {
  raw: number;
  sections: ContextSections;
  stats: ItemStats[];
  images: number;
  imageBytes: number;
  imageChars: number;
  maxImageBytes: number;
  maxImageBase64: number;
  maxImageSide: number;
  jsonBytes: number;
}

export function measureView(
  items: readonly ViewItem[],
  fixed: { system: number; tools: number },
  ctx: MeasureContext,
): ViewMeasure {
  const sections = {
    system: fixed.system,
    tools: fixed.tools,
    messages: 0,
    toolResults: 0,
    images: 0,
    snapshots: 0,
    summaries: 0,
  };
  const stats: ItemStats[] = new Array<ItemStats>(items.length);
  let images = 0;
  let imageBytes = 0;
  let imageChars = 0;
  let jsonBytes = 0;
  let maxImageBytes = 0;
  let maxImageBase64 = 0;
  let maxImageSide = 0;
  const scope = ctx.cache.scope(scopeName(ctx));
  // Earlier turns' thinking / reasoning: stripped by the provider unless the model keeps it.
  const keepsPrior = keepsPriorReasoning(ctx.provider, ctx.model);
  let turnStart = 0;
  if (!keepsPrior) {
    for (let i = items.length - 1; i >= 0; i--) {
      if (opensTurn(items[i].message)) {
        turnStart = i;
        break;
      }
    }
  }
  let strippedReasoning = 0;
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    const s = itemStats(item, ctx, scope);
    stats[i] = s;
    if (i < turnStart && s.reasoningTokens > 0) strippedReasoning += s.reasoningTokens;
    jsonBytes += s.jsonBytes;
    if (s.images > 0) {
      images += s.images;
      imageBytes += s.imageBytes;
      imageChars += s.imageChars;
      if (s.maxImageBytes > maxImageBytes) maxImageBytes = s.maxImageBytes;
      if (s.maxImageBase64 > maxImageBase64) maxImageBase64 = s.maxImageBase64;
      if (s.maxImageSide > maxImageSide) maxImageSide = s.maxImageSide;
    }
    if (item.kind === 'snapshot') sections.snapshots += s.tokens;
    else if (item.kind === 'summary') sections.summaries += s.tokens;
    else if (item.message.role === 'system') sections.system += s.tokens;
    else {
      sections.toolResults += s.toolResultTokens;
      sections.images += s.imageTokens;
      sections.messages += s.tokens - s.toolResultTokens - s.imageTokens;
    }
  }
  sections.messages -= strippedReasoning;
  const raw =
    sections.system +
    sections.tools +
    sections.messages +
    sections.toolResults +
    sections.images +
    sections.snapshots +
    sections.summaries;
  return {
    raw,
    sections,
    stats,
    images,
    imageBytes,
    imageChars,
    maxImageBytes,
    maxImageBase64,
    maxImageSide,
    jsonBytes,
  };
}

export function blockTokens(block: Block, ctx: MeasureContext): number {
  const t: Tally = {
    tokens: 0,
    reasoningTokens: 0,
    toolResultTokens: 0,
    imageTokens: 0,
    images: 0,
    imageBytes: 0,
    imageChars: 0,
    maxImageBytes: 0,
    maxImageBase64: 0,
    maxImageSide: 0,
  };
  tallyBlock(block, ctx, t);
  return t.tokens;
}
