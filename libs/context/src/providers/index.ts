import type { Message } from '@arbor/domain/messages';
import { BODY_ENCODING, type EncodeOptions, type ProviderName } from '../types';
import { type AnthropicBody, encodeAnthropic } from './anthropic';
import { type GeminiBody, type GeminiEncodeOptions, encodeGemini } from './gemini';
import { type OpenAIChatBody, type OpenAIChatEncodeOptions, encodeOpenAIChat } from './openai-chat';
import { assignToolIds, type ToolRename } from './tool-ids';
import {
  type OpenAIResponsesBody,
  type OpenAIResponsesEncodeOptions,
  encodeOpenAIResponses,
} from './openai-responses';

export interface BodyByProvider {
  anthropic: AnthropicBody;
  'openai-chat': OpenAIChatBody;
  'openai-responses': OpenAIResponsesBody;
  gemini: GeminiBody;
}

export interface EncodeOptionsByProvider {
  anthropic: EncodeOptions;
  'openai-chat': OpenAIChatEncodeOptions;
  'openai-responses': OpenAIResponsesEncodeOptions;
  gemini: GeminiEncodeOptions;
}

export type ProviderBody = BodyByProvider[ProviderName];

type Encoder<P extends ProviderName> = (
  messages: readonly Message[],
  options: EncodeOptionsByProvider[P],
) => BodyByProvider[P];

const ENCODERS: { [P in ProviderName]: Encoder<P> } = {
  anthropic: encodeAnthropic,
  'openai-chat': encodeOpenAIChat,
  'openai-responses': encodeOpenAIResponses,
  gemini: encodeGemini,
};

/**
 * Encodes neutral messages (root → tip, already chosen) into the provider's request body, with
 * the tool ids and names the body carries in place of the recorded ones (see `tool-ids.ts`;
 * none with encoding 1).
 */
export function encodeWithRenames<P extends ProviderName>(
  provider: P,
  messages: readonly Message[],
  options: EncodeOptionsByProvider[P],
): { body: BodyByProvider[P]; renames: ToolRename[] } {
  const encoder: Encoder<P> = ENCODERS[provider];
  if ((options.encoding ?? BODY_ENCODING) < 2)
    return { body: encoder(messages, options), renames: [] };
  const names = (options.tools ?? []).map((t) => t.name);
  const assigned = assignToolIds(provider, messages, names);
  return { body: encoder(assigned.messages, options), renames: assigned.renames };
}

/** Encodes neutral messages (root → tip, already chosen) into the provider's request body. */
export function encode<P extends ProviderName>(
  provider: P,
  messages: readonly Message[],
  options: EncodeOptionsByProvider[P],
): BodyByProvider[P] {
  return encodeWithRenames(provider, messages, options).body;
}

export * from './anthropic';
export * from './gemini';
export * from './openai-chat';
export * from './openai-responses';
export {
  assignToolIds,
  toolNameProblem,
  TOOL_RULES,
  type ToolRename,
  type ToolRules,
} from './tool-ids';
export {
  checkImageSources,
  cutAtProviderCompaction,
  imageSourceProblem,
  modelFamily,
  originOf,
  sameFamily,
  TOOL_ERROR_PREFIX,
  EMPTY_TOOL_OUTPUT,
  UnsupportedImageSourceError,
  type Origin,
} from './shared';
