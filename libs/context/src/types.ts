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

/**
 * The version of the encoders' output. 1: bodies as Arbor built them before tool ids were made
 * unique and before `openai-responses` sent assistant text as easy input messages; 2: today's.
 * A context records the version it was built with, so a reproduction encodes it the same way.
 */
export type BodyEncoding = 1 | 2;
export const BODY_ENCODING: BodyEncoding = 2;

/** What every encoder needs besides the messages. */
export interface EncodeOptions {
  model: string;
  system?: string;
  tools?: readonly ToolDefinition[];
  maxTokens?: number;
  /** Default `BODY_ENCODING`; 1 only to reproduce a context recorded before version 2. */
  encoding?: BodyEncoding;
}
