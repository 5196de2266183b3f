/**
 * The provider-neutral message model (docs/message-model.md). Shaped like Anthropic content blocks, which
 * every provider format can be derived from. Messages are immutable once committed.
 */

export type Role = 'system' | 'user' | 'assistant';

/**
 * Free JSON a client keeps on a block or a message (item ids, status, provider data of its
 * framework): stored and answered byte for byte, never read by Arbor, never sent to a model.
 */
export type ClientData = Record<string, unknown>;

/** What every block may carry besides its own fields. */
export interface BlockExtras {
  clientData?: ClientData;
}

export interface TextBlock extends BlockExtras {
  type: 'text';
  text: string;
}

export type ImageMediaTypeName = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';

/** The image's bytes, in the message (every provider takes these). */
export interface Base64ImageSource {
  type: 'base64';
  media_type: ImageMediaTypeName;
  data: string;
}

/** An image the provider fetches itself (Anthropic, both OpenAI formats; not Gemini). */
export interface UrlImageSource {
  type: 'url';
  url: string;
}

/** Who issued a file id: a file id is only meaningful to the provider that stored the file. */
export type FileProvider = 'anthropic' | 'openai' | 'gemini';

/**
 * A file uploaded to a provider's files API (`file_id`; for Gemini the file's URI). Sent only to
 * that provider; `media_type` is required for Gemini (`fileData.mimeType`).
 */
export interface FileImageSource {
  type: 'file';
  provider: FileProvider;
  file_id: string;
  media_type?: ImageMediaTypeName;
}

export type ImageSource = Base64ImageSource | UrlImageSource | FileImageSource;

export interface ImageBlock extends BlockExtras {
  type: 'image';
  source: ImageSource;
}

/** An image block whose bytes Arbor holds (measured, rendered, stripped by the ladder). */
export interface Base64ImageBlock extends ImageBlock {
  source: Base64ImageSource;
}

export const isBase64Image = (block: ImageBlock): block is Base64ImageBlock =>
  block.source.type === 'base64';

/** A short label of where an image is: its media type, URL or provider file id. */
export const imageSourceLabel = (source: ImageSource): string =>
  source.type === 'base64'
    ? source.media_type
    : source.type === 'url'
      ? `url ${source.url}`
      : `${source.provider} file ${source.file_id}`;

export interface ToolUseBlock extends BlockExtras {
  type: 'tool_use';
  id: string;
  name: string;
  input: unknown;
}

/** Content allowed inside a tool result. */
export type ToolResultContentBlock = TextBlock | ImageBlock;

export interface ToolResultBlock extends BlockExtras {
  type: 'tool_result';
  tool_use_id: string;
  /** The tool's name, for providers that name results (Gemini's `functionResponse.name`). */
  name?: string;
  content: string | ToolResultContentBlock[];
  is_error?: boolean;
}

/** Kept byte-exact, signature included: providers reject altered thinking. */
export interface ThinkingBlock extends BlockExtras {
  type: 'thinking';
  thinking: string;
  signature: string;
}

export interface RedactedThinkingBlock extends BlockExtras {
  type: 'redacted_thinking';
  data: string;
}

export interface ReasoningSummaryText {
  type: 'summary_text';
  text: string;
}

/**
 * An OpenAI reasoning item (Responses API `{type:'reasoning', id, summary, encrypted_content}`),
 * kept byte-exact. Sent back only to the Responses API of the model family that produced it
 * (its message's `model`); every other target drops it, as thinking is dropped.
 */
export interface ReasoningBlock extends BlockExtras {
  type: 'reasoning';
  /** OpenAI's item id (`rs_…`); absent when the source kept none (Codex rollouts). */
  id?: string;
  summary: ReasoningSummaryText[];
  encrypted_content?: string;
}

/** Providers whose opaque blocks Arbor keeps. */
export type OpaqueProvider = 'anthropic' | 'openai';

/**
 * A block or item a provider returned that must be sent back to it as it was (Anthropic's
 * server-side `compaction` content block, OpenAI's encrypted `compaction` item): `item` is kept
 * byte for byte and sent only to `provider` for the model family of `model` (default: the
 * message's). One whose `item.type` is `compaction` stands for everything before it: the
 * ladder neither sends nor counts the messages it replaces.
 */
export interface ProviderBlock extends BlockExtras {
  type: 'provider';
  provider: OpaqueProvider;
  model?: string;
  item: Record<string, unknown>;
}

export type Block =
  | TextBlock
  | ImageBlock
  | ToolUseBlock
  | ToolResultBlock
  | ThinkingBlock
  | RedactedThinkingBlock
  | ReasoningBlock
  | ProviderBlock;

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
  /** Free JSON kept byte for byte, never sent to a model (see `ClientData`). */
  clientData?: ClientData;
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
  clientData?: ClientData;
  /** The turn that committed it. */
  turnId: string;
  /** ISO-8601 commit time. */
  createdAt: string;
}
