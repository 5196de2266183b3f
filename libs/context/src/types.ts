/** The wire formats Arbor can encode a context into (the HTTP contract, `POST .../context`). */
export type ProviderName = 'anthropic' | 'openai-chat' | 'openai-responses' | 'gemini';

export const PROVIDER_NAMES: readonly ProviderName[] = [
  'anthropic',
  'openai-chat',
  'openai-responses',
  'gemini',
];

export type JsonSchema = Record<string, unknown>;

export interface ToolDefinition {
  name: string;
  description?: string;
  input_schema: JsonSchema;
}

/** The encoders' output version; a context records it so a reproduction encodes the same way. */
export type BodyEncoding = 1 | 2;
export const BODY_ENCODING: BodyEncoding = 2;

export interface EncodeOptions {
  model: string;
  system?: string;
  tools?: readonly ToolDefinition[];
  maxTokens?: number;
  encoding?: BodyEncoding;
}
