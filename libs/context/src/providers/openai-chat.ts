/** OpenAI Chat Completions. Tool messages take text only: their images follow as a user message. */
import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import type { Block, Message, ToolResultBlock } from '@arbor/domain/messages';
import type { EncodeOptions, JsonSchema } from '../types';
import {
  argumentsJson,
  imageUrl,
  inCallOrder,
  isBlankText,
  isUsableText,
  systemText,
  toolOutputText,
  toolResultImages,
  flatMapped,
} from './shared';

export interface ChatTextPart {
  type: 'text';
  text: string;
}
export interface ChatImagePart {
  type: 'image_url';
  image_url: { url: string; detail?: 'auto' | 'low' | 'high' };
}
export type ChatUserPart = ChatTextPart | ChatImagePart;

export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}
export interface ChatSystemMessage {
  role: 'system' | 'developer';
  content: string;
}
export interface ChatUserMessage {
  role: 'user';
  content: string | ChatUserPart[];
}
export interface ChatAssistantMessage {
  role: 'assistant';
  content: string | ChatTextPart[] | null;
  tool_calls?: ChatToolCall[];
}
export interface ChatToolMessage {
  role: 'tool';
  tool_call_id: string;
  content: string;
}
export type ChatMessage =
  ChatSystemMessage | ChatUserMessage | ChatAssistantMessage | ChatToolMessage;

export interface ChatTool {
  type: 'function';
  function: { name: string; description?: string; parameters: JsonSchema };
}
export interface OpenAIChatBody {
  model: string;
  messages: ChatMessage[];
  tools?: ChatTool[];
  max_completion_tokens?: number;
  prompt_cache_key?: string;
}

export interface OpenAIChatEncodeOptions extends EncodeOptions {
  /** Role used for system text; by default `developer` for o-series and gpt-5 models. */
  systemRole?: 'system' | 'developer';
}

export function defaultSystemRole(model: string): 'system' | 'developer' {
  return /^(o\d|gpt-5)/i.test(model) ? 'developer' : 'system';
}

function userPart(block: Block): ChatUserPart[] {
  if (isUsableText(block)) return [{ type: 'text', text: block.text }];
  if (block.type === 'image')
    return [{ type: 'image_url', image_url: { url: imageUrl(block.source, 'openai-chat') } }];
  return [];
}

function toolImageParts(results: readonly ToolResultBlock[]): ChatUserPart[] {
  return flatMapped(results, (result) => {
    const images = toolResultImages(result);
    if (images.length === 0) return [];
    const label: ChatTextPart = {
      type: 'text',
      text: `Image output of tool call ${result.tool_use_id}:`,
    };
    return [label, ...flatMapped(images, userPart)];
  });
}

function userContent(parts: ChatUserPart[]): string | ChatUserPart[] {
  return parts.length === 1 && parts[0].type === 'text' ? parts[0].text : parts;
}

function encodeUser(message: Message, previous: Message | undefined): ChatMessage[] {
  const results = inCallOrder(
    message.content.filter((b): b is ToolResultBlock => b.type === 'tool_result'),
    previous,
  );
  const toolMessages = results.map((r): ChatToolMessage => ({
    role: 'tool',
    tool_call_id: r.tool_use_id,
    content: toolOutputText(r),
  }));
  const parts = [...toolImageParts(results), ...flatMapped(message.content, userPart)];
  return parts.length > 0
    ? [...toolMessages, { role: 'user', content: userContent(parts) }]
    : toolMessages;
}

function encodeAssistant(message: Message): ChatMessage[] {
  const texts = message.content
    .filter(isUsableText)
    .map((b): ChatTextPart => ({ type: 'text', text: b.text }));
  const calls = flatMapped(message.content, (b): ChatToolCall[] =>
    b.type === 'tool_use'
      ? [
          {
            id: b.id,
            type: 'function',
            function: { name: b.name, arguments: argumentsJson(b.input) },
          },
        ]
      : [],
  );
  if (texts.length === 0 && calls.length === 0) return [];
  const content = texts.length === 0 ? null : texts.length === 1 ? texts[0].text : texts;
  return [{ role: 'assistant', content, ...(calls.length > 0 ? { tool_calls: calls } : {}) }];
}

export function encodeOpenAIChatMessages(
  messages: readonly Message[],
  systemRole: 'system' | 'developer',
): ChatMessage[] {
  const out: ChatMessage[] = [];
  let previous: Message | undefined;
  for (const message of messages) {
    if (message.role === 'system') {
      const text = systemText(message);
      if (text !== '') out.push({ role: systemRole, content: text });
      continue;
    }
    out.push(
      ...(message.role === 'user' ? encodeUser(message, previous) : encodeAssistant(message)),
    );
    previous = message;
  }
  return out;
}

export function encodeOpenAIChat(
  messages: readonly Message[],
  options: OpenAIChatEncodeOptions,
): OpenAIChatBody {
  const systemRole = options.systemRole ?? defaultSystemRole(options.model);
  const head: ChatMessage[] =
    options.system !== undefined && !isBlankText(options.system)
      ? [{ role: systemRole, content: options.system }]
      : [];
  const tools = (options.tools ?? []).map((t): ChatTool => ({
    type: 'function',
    function: {
      name: t.name,
      ...(t.description !== undefined ? { description: t.description } : {}),
      parameters: t.input_schema,
    },
  }));
  return {
    model: options.model,
    messages: [...head, ...encodeOpenAIChatMessages(messages, systemRole)],
    ...(tools.length > 0 ? { tools } : {}),
    ...(options.maxTokens !== undefined ? { max_completion_tokens: options.maxTokens } : {}),
  } satisfies ChatCompletionCreateParamsNonStreaming;
}
