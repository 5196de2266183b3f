/** The wire formats Arbor can encode a context into (the HTTP contract, `POST .../context`). */
export type ProviderName = 'anthropic' | 'openai-chat' | 'openai-responses' | 'gemini';

export const PROVIDER_NAMES: readonly ProviderName[] = [
  'anthropic',
  'openai-chat',
  'openai-responses',
  'gemini',
];

/** A JSON Schema object, passed through to the provider untouched. */
export type JsonSchema = Record<string, unknown>;

/** A provider-neutral tool definition, shaped like Anthropic's. */
export interface ToolDefinition {
  name: string;
  description?: string;
  input_schema: JsonSchema;
}

/** What every encoder needs besides the messages. */
export interface EncodeOptions {
  model: string;
  system?: string;
  tools?: readonly ToolDefinition[];
  maxTokens?: number;
}
