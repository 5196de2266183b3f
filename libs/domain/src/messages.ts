/**
 * The provider-neutral message model (the HTTP contract in the README). Shaped like Anthropic content blocks, which
 * every provider format can be derived from. Messages are immutable once committed.
 */

export type Role = 'system' | 'user' | 'assistant';

export interface TextBlock {
  type: 'text';
  text: string;
}

export interface ImageSource {
  type: 'base64';
  media_type: 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';
  data: string;
}

export interface ImageBlock {
  type: 'image';
  source: ImageSource;
}

export interface ToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: unknown;
}

/** Content allowed inside a tool result. */
export type ToolResultContentBlock = TextBlock | ImageBlock;

export interface ToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content: string | ToolResultContentBlock[];
  is_error?: boolean;
}

/** Kept byte-exact, signature included: providers reject altered thinking. */
export interface ThinkingBlock {
  type: 'thinking';
  thinking: string;
  signature: string;
}

export interface RedactedThinkingBlock {
  type: 'redacted_thinking';
  data: string;
}

export type Block =
  TextBlock | ImageBlock | ToolUseBlock | ToolResultBlock | ThinkingBlock | RedactedThinkingBlock;

export type BlockType = Block['type'];

/** Usage as measured by the provider for the call that produced an assistant message. */
export interface Usage {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
}

/** A message as a client sends it in a turn. */
export interface MessageInput {
  id?: string;
  role: Role;
  content: Block[];
  pinned?: boolean;
  model?: string;
  usage?: Usage;
  metadata?: Record<string, unknown>;
}

/** A committed message: ids assigned, parent linked. */
export interface Message {
  id: string;
  parentId: string | null;
  role: Role;
  content: Block[];
  pinned?: boolean;
  model?: string;
  usage?: Usage;
  metadata?: Record<string, unknown>;
  /** The turn that committed it. */
  turnId: string;
  /** ISO-8601 commit time. */
  createdAt: string;
}
