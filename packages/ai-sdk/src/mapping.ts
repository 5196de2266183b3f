/**
 * `ai` ModelMessages ↔ Arbor messages. Arbor's blocks are Anthropic-shaped: tool results travel
 * in a user message right after the assistant's tool_use, where the `ai` package has a `tool`
 * message; `toArbor` folds those in, `fromArbor` splits them out again.
 */
import {
  type AssistantModelMessage,
  type ModelMessage,
  type ToolModelMessage,
  type ToolResultPart,
  type UserModelMessage,
} from 'ai';
import { type Block, type JsonValue, type MessageInput } from '@arbor/client';

/** Per-step usage of a `generateText` loop, as `result.steps[i].usage`. */
export interface StepUsage {
  inputTokens?: number;
  outputTokens?: number;
  cachedInputTokens?: number;
}

/** A part Arbor has no block for (a file, an image of an unknown kind). */
export class UnsupportedPartError extends Error {
  constructor(readonly part: string) {
    super(`@arbor/ai-sdk: cannot store a ${part} part yet`);
    this.name = 'UnsupportedPartError';
  }
}

type ImageBlock = Extract<Block, { type: 'image' }>;
type ImageMediaType = Extract<ImageBlock['source'], { type: 'base64' }>['media_type'];

/** An image part's data as an Arbor image block: http(s) URLs by URL, the rest as base64. */
const imageBlock = (data: unknown, mediaType: string | undefined): ImageBlock => {
  const base64 = (b64: string, type = mediaType): ImageBlock => ({
    type: 'image',
    source: { type: 'base64', media_type: (type ?? 'image/png') as ImageMediaType, data: b64 },
  });
  const url = data instanceof URL ? data.href : typeof data === 'string' ? data : undefined;
  if (url !== undefined && /^https?:\/\//i.test(url))
    return { type: 'image', source: { type: 'url', url } };
  if (url !== undefined && /^data:/i.test(url)) {
    const m = /^data:([^;,]+)?(;base64)?,(.*)$/is.exec(url);
    if (!m || !m[2]) throw new UnsupportedPartError('image data URL that is not base64');
    return base64(m[3], m[1] ?? mediaType);
  }
  if (data instanceof URL) throw new UnsupportedPartError(`image URL (${data.protocol})`);
  if (typeof data === 'string') return base64(data);
  if (data instanceof Uint8Array) return base64(Buffer.from(data).toString('base64'));
  if (data instanceof ArrayBuffer)
    return base64(Buffer.from(new Uint8Array(data)).toString('base64'));
  throw new UnsupportedPartError('image of this kind');
};

const resultContent = (part: ToolResultPart): { content: string; is_error?: boolean } => {
  const o = part.output;
  switch (o.type) {
    case 'text':
      return { content: o.value };
    case 'json':
      return { content: JSON.stringify(o.value) };
    case 'error-text':
      return { content: o.value, is_error: true };
    case 'error-json':
      return { content: JSON.stringify(o.value), is_error: true };
    case 'execution-denied':
      return { content: o.reason ?? 'execution denied', is_error: true };
    case 'content':
      return {
        content: o.value.map((v) => (v.type === 'text' ? v.text : JSON.stringify(v))).join('\n'),
      };
    default:
      throw new UnsupportedPartError(`tool output ${(o as { type: string }).type}`);
  }
};

const userBlocks = (m: UserModelMessage): Block[] => {
  if (typeof m.content === 'string') return [{ type: 'text', text: m.content }];
  return m.content.map((p): Block => {
    if (p.type === 'text') return { type: 'text', text: p.text };
    if (p.type === 'image') return imageBlock(p.image, p.mediaType);
    throw new UnsupportedPartError(p.type);
  });
};

const assistantBlocks = (m: AssistantModelMessage): Block[] => {
  if (typeof m.content === 'string') return [{ type: 'text', text: m.content }];
  const blocks: Block[] = [];
  for (const p of m.content) {
    if (p.type === 'text') {
      if (p.text.length > 0) blocks.push({ type: 'text', text: p.text });
    } else if (p.type === 'tool-call') {
      const input =
        typeof p.input === 'object' && p.input !== null && !Array.isArray(p.input)
          ? (p.input as Record<string, JsonValue>)
          : { value: p.input as JsonValue };
      blocks.push({ type: 'tool_use', id: p.toolCallId, name: p.toolName, input });
    } else if (p.type === 'reasoning') {
      const signature = (p.providerOptions?.anthropic as { signature?: unknown } | undefined)
        ?.signature;
      // Only signed (Anthropic) reasoning can go back to a model; anything else is not stored.
      if (typeof signature === 'string')
        blocks.push({ type: 'thinking', thinking: p.text, signature });
    } else {
      throw new UnsupportedPartError(p.type);
    }
  }
  return blocks;
};

const toolBlocks = (m: ToolModelMessage): Block[] =>
  m.content.flatMap((p): Block[] =>
    p.type === 'tool-result'
      ? [{ type: 'tool_result', tool_use_id: p.toolCallId, ...resultContent(p) }]
      : [],
  );

/**
 * The `ai` messages of a step loop as Arbor messages: `tool` messages become the user message
 * carrying the tool results (merged with a user message that follows), and the i-th assistant
 * message gets `steps[i].usage` as its measured usage (with `model` when given).
 */
export const toArbor = (
  messages: readonly ModelMessage[],
  steps: readonly { usage?: StepUsage; model?: string }[] = [],
): MessageInput[] => {
  const out: MessageInput[] = [];
  let step = 0;
  for (const m of messages) {
    if (m.role === 'system') {
      out.push({ role: 'system', content: [{ type: 'text', text: m.content }] });
      continue;
    }
    if (m.role === 'assistant') {
      const content = assistantBlocks(m);
      if (content.length === 0) continue;
      const s = steps[step++];
      const usage = s?.usage;
      out.push({
        role: 'assistant',
        content,
        ...(s?.model ? { model: s.model } : {}),
        ...(usage && (usage.inputTokens !== undefined || usage.outputTokens !== undefined)
          ? {
              usage: {
                input_tokens: usage.inputTokens ?? null,
                output_tokens: usage.outputTokens ?? null,
                ...(usage.cachedInputTokens !== undefined
                  ? { cache_read_input_tokens: usage.cachedInputTokens }
                  : {}),
              },
            }
          : {}),
      });
      continue;
    }
    const content = m.role === 'tool' ? toolBlocks(m) : userBlocks(m);
    const last = out[out.length - 1];
    // Tool results first, then what the user added: one user message, as Arbor's turns want.
    if (last?.role === 'user') last.content = [...last.content, ...content];
    else out.push({ role: 'user', content });
  }
  return out;
};

/** Anthropic-shaped messages: Arbor's own, or `body.messages` of an `anthropic` context. */
export interface ArborLikeMessage {
  role: string;
  content: string | readonly ArborLikeBlock[];
}
export type ArborLikeBlock = { type: string; [key: string]: unknown };

export interface ArborContextLike {
  system?: string | readonly { type: string; text?: string }[];
  messages: readonly ArborLikeMessage[];
}

/**
 * Arbor messages (or an `anthropic` context body) as `ai` ModelMessages: user tool_results
 * become a `tool` message (named by the tool_use they answer), thinking becomes a reasoning
 * part with its Anthropic signature.
 */
export const fromArbor = (context: ArborContextLike): ModelMessage[] => {
  const out: ModelMessage[] = [];
  const system =
    typeof context.system === 'string'
      ? context.system
      : (context.system ?? []).map((b) => b.text ?? '').join('\n');
  if (system) out.push({ role: 'system', content: system });
  const toolNames = new Map<string, string>();
  for (const m of context.messages) {
    const blocks: readonly ArborLikeBlock[] =
      typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
    if (m.role === 'system') {
      out.push({ role: 'system', content: blocks.map((b) => String(b.text ?? '')).join('\n') });
    } else if (m.role === 'assistant') {
      const content: AssistantModelMessage['content'] = [];
      for (const b of blocks) {
        if (b.type === 'text') content.push({ type: 'text', text: String(b.text) });
        else if (b.type === 'tool_use') {
          toolNames.set(String(b.id), String(b.name));
          content.push({
            type: 'tool-call',
            toolCallId: String(b.id),
            toolName: String(b.name),
            input: b.input,
          });
        } else if (b.type === 'thinking')
          content.push({
            type: 'reasoning',
            text: String(b.thinking),
            providerOptions: { anthropic: { signature: String(b.signature) } },
          });
      }
      out.push({ role: 'assistant', content });
    } else {
      const results: ToolModelMessage['content'] = [];
      const parts: Exclude<UserModelMessage['content'], string> = [];
      for (const b of blocks) {
        if (b.type === 'tool_result') {
          const id = String(b.tool_use_id);
          const text =
            typeof b.content === 'string'
              ? b.content
              : (b.content as { type: string; text?: string }[])
                  .map((c) => (c.type === 'text' ? (c.text ?? '') : `[${c.type}]`))
                  .join('\n');
          results.push({
            type: 'tool-result',
            toolCallId: id,
            toolName: toolNames.get(id) ?? 'unknown_tool',
            output: b.is_error
              ? { type: 'error-text', value: text }
              : { type: 'text', value: text },
          });
        } else if (b.type === 'text') parts.push({ type: 'text', text: String(b.text) });
        else if (b.type === 'image') {
          const source = b.source as {
            type: string;
            data?: string;
            media_type?: string;
            url?: string;
          };
          if (source.type === 'url' && typeof source.url === 'string')
            parts.push({ type: 'image', image: new URL(source.url) });
          else if (source.type === 'base64' && typeof source.data === 'string')
            parts.push({ type: 'image', image: source.data, mediaType: source.media_type });
        }
      }
      if (results.length > 0) out.push({ role: 'tool', content: results });
      if (parts.length > 0) out.push({ role: 'user', content: parts });
    }
  }
  return out;
};
