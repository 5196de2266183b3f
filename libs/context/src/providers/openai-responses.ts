// OpenAI Responses API (README.md). Encoding 2 sends assistant text as easy input messages:
// strict backends refuse encoding 1's `output_text` without `annotations`.
import type { ResponseCreateParamsNonStreaming } from 'openai/resources/responses/responses';
import type { Block, Message, ReasoningBlock, ToolResultBlock } from '@arbor/domain/messages';
import { BODY_ENCODING, type EncodeOptions, type JsonSchema } from '../types';
import { defaultSystemRole } from './openai-chat';
import {
  argumentsJson,
  imageUrl,
  sendsProviderBlock,
  sendsReasoning,
  inCallOrder,
  isBlankText,
  isUsableText,
  systemText,
  toolOutputText,
  toolResultImages,
  flatMapped,
} from './shared';

export interface ResponsesInputText {
  type: 'input_text';
  text: string;
}
export type ResponsesInputImage =
  | { type: 'input_image'; image_url: string; detail: 'auto' | 'low' | 'high' }
  | { type: 'input_image'; file_id: string; detail: 'auto' | 'low' | 'high' };
export interface ResponsesReasoningItem {
  type: 'reasoning';
  id?: string;
  summary: { type: 'summary_text'; text: string }[];
  encrypted_content?: string;
}
export interface ResponsesOpaqueItem {
  type: 'compaction';
  encrypted_content: string;
  id?: string;
}
export type ResponsesInputContent = ResponsesInputText | ResponsesInputImage;
export interface ResponsesOutputText {
  type: 'output_text';
  text: string;
}
export interface ResponsesInputMessage {
  type: 'message';
  role: 'user' | 'system' | 'developer';
  content: ResponsesInputContent[];
}
export interface ResponsesAssistantMessage {
  type: 'message';
  role: 'assistant';
  content: string;
}
export interface ResponsesLegacyAssistantMessage {
  type: 'message';
  role: 'assistant';
  content: ResponsesOutputText[];
}
export interface ResponsesFunctionCall {
  type: 'function_call';
  call_id: string;
  name: string;
  arguments: string;
}
export interface ResponsesFunctionCallOutput {
  type: 'function_call_output';
  call_id: string;
  output: string | ResponsesInputContent[];
}
type SdkCheckedItem =
  Exclude<ResponsesCurrentItem, ResponsesReasoningItem> | (ResponsesReasoningItem & { id: string });
/** What encoding 2 sends: each one an input item of OpenAI's schema (the compiler checks). */
export type ResponsesCurrentItem =
  | ResponsesReasoningItem
  | ResponsesOpaqueItem
  | ResponsesInputMessage
  | ResponsesAssistantMessage
  | ResponsesFunctionCall
  | ResponsesFunctionCallOutput;
export type ResponsesItem = ResponsesCurrentItem | ResponsesLegacyAssistantMessage;

export interface ResponsesTool {
  type: 'function';
  name: string;
  description?: string;
  parameters: JsonSchema;
  strict: boolean;
}
export interface OpenAIResponsesBody {
  model: string;
  input: ResponsesItem[];
  instructions?: string;
  tools?: ResponsesTool[];
  max_output_tokens?: number;
  prompt_cache_key?: string;
}

export interface OpenAIResponsesEncodeOptions extends EncodeOptions {
  systemRole?: 'system' | 'developer';
}

function inputContent(block: Block): ResponsesInputContent[] {
  if (isUsableText(block)) return [{ type: 'input_text', text: block.text }];
  if (block.type === 'image') {
    const source = block.source;
    if (source.type === 'file' && source.provider === 'openai')
      return [{ type: 'input_image', file_id: source.file_id, detail: 'auto' }];
    return [
      { type: 'input_image', image_url: imageUrl(source, 'openai-responses'), detail: 'auto' },
    ];
  }
  return [];
}

function reasoningItem(block: ReasoningBlock): ResponsesReasoningItem {
  const summary = block.summary.map((s) => ({ type: 'summary_text' as const, text: s.text }));
  const item: ResponsesReasoningItem =
    block.id === undefined
      ? { type: 'reasoning', summary }
      : { type: 'reasoning', id: block.id, summary };
  return block.encrypted_content === undefined
    ? item
    : { ...item, encrypted_content: block.encrypted_content };
}

function functionOutput(result: ToolResultBlock): ResponsesFunctionCallOutput {
  const images = toolResultImages(result);
  const text = toolOutputText(result);
  const output: ResponsesFunctionCallOutput['output'] =
    images.length === 0
      ? text
      : [{ type: 'input_text', text }, ...flatMapped(images, inputContent)];
  return { type: 'function_call_output', call_id: result.tool_use_id, output };
}

function encodeUser(message: Message, previous: Message | undefined): ResponsesItem[] {
  const results = inCallOrder(
    message.content.filter((b): b is ToolResultBlock => b.type === 'tool_result'),
    previous,
  );
  const content = flatMapped(message.content, inputContent);
  const items: ResponsesItem[] = results.map(functionOutput);
  if (content.length > 0) items.push({ type: 'message', role: 'user', content });
  return items;
}

function encodeAssistant(message: Message, legacy: boolean, model: string): ResponsesItem[] {
  const items: ResponsesItem[] = [];
  const reasoning = sendsReasoning(message, 'openai-responses', model);
  for (const block of message.content) {
    if (block.type === 'reasoning') {
      if (reasoning) items.push(reasoningItem(block));
    } else if (block.type === 'provider') {
      // Byte for byte: the stored item is the input item (its key order kept by JSON.stringify).
      if (sendsProviderBlock(block, message, 'openai-responses', model))
        items.push(block.item as unknown as ResponsesOpaqueItem);
    } else if (isUsableText(block) && !legacy) {
      items.push({ type: 'message', role: 'assistant', content: block.text });
    } else if (isUsableText(block)) {
      const last = items[items.length - 1];
      const part: ResponsesOutputText = { type: 'output_text', text: block.text };
      if (
        last &&
        last.type === 'message' &&
        last.role === 'assistant' &&
        Array.isArray(last.content)
      )
        last.content.push(part);
      else items.push({ type: 'message', role: 'assistant', content: [part] });
    } else if (block.type === 'tool_use') {
      items.push({
        type: 'function_call',
        call_id: block.id,
        name: block.name,
        arguments: argumentsJson(block.input),
      });
    }
  }
  return items;
}

export function encodeOpenAIResponsesItems(
  messages: readonly Message[],
  systemRole: 'system' | 'developer',
  legacy = false,
  model = '',
): ResponsesItem[] {
  const items: ResponsesItem[] = [];
  let previous: Message | undefined;
  for (const message of messages) {
    if (message.role === 'system') {
      const text = systemText(message);
      if (text !== '') {
        items.push({ type: 'message', role: systemRole, content: [{ type: 'input_text', text }] });
      }
      continue;
    }
    items.push(
      ...(message.role === 'user'
        ? encodeUser(message, previous)
        : encodeAssistant(message, legacy, model)),
    );
    previous = message;
  }
  return items;
}

export function encodeOpenAIResponses(
  messages: readonly Message[],
  options: OpenAIResponsesEncodeOptions,
): OpenAIResponsesBody {
  const systemRole = options.systemRole ?? defaultSystemRole(options.model);
  const tools = (options.tools ?? []).map((t): ResponsesTool => ({
    type: 'function',
    name: t.name,
    ...(t.description !== undefined ? { description: t.description } : {}),
    parameters: t.input_schema,
    strict: false,
  }));
  const legacy = (options.encoding ?? BODY_ENCODING) < 2;
  const input = encodeOpenAIResponsesItems(messages, systemRole, legacy, options.model);
  const body = {
    model: options.model,
    input,
    ...(options.system !== undefined && !isBlankText(options.system)
      ? { instructions: options.system }
      : {}),
    ...(tools.length > 0 ? { tools } : {}),
    ...(options.maxTokens !== undefined ? { max_output_tokens: options.maxTokens } : {}),
  };
  // A reasoning item without its id (Codex keeps none) is what OpenAI's own CLI sends back; the
  // SDK's type wants the id, so those items are checked as if they had one.
  return legacy ? body : sdkChecked({ ...body, input: input as SdkCheckedItem[] });
}

const sdkChecked = <B extends ResponseCreateParamsNonStreaming & OpenAIResponsesBody>(body: B): B =>
  body;
