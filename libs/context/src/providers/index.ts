import type { Message } from '@arbor/domain/messages';
import type { EncodeOptions, ProviderName } from '../types';
import { type AnthropicBody, encodeAnthropic } from './anthropic';
import { type GeminiBody, type GeminiEncodeOptions, encodeGemini } from './gemini';
import { type OpenAIChatBody, type OpenAIChatEncodeOptions, encodeOpenAIChat } from './openai-chat';
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

/** Encodes neutral messages (root → tip, already chosen) into the provider's request body. */
export function encode<P extends ProviderName>(
  provider: P,
  messages: readonly Message[],
  options: EncodeOptionsByProvider[P],
): BodyByProvider[P] {
  const encoder: Encoder<P> = ENCODERS[provider];
  return encoder(messages, options);
}

export * from './anthropic';
export * from './gemini';
export * from './openai-chat';
export * from './openai-responses';
export { originOf, TOOL_ERROR_PREFIX, EMPTY_TOOL_OUTPUT, type Origin } from './shared';
