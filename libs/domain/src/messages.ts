// The provider-neutral message model (docs/message-model.md), shaped like Anthropic content
// blocks, which every provider format can be derived from.

export type Role = 'system' | 'user' | 'assistant';

/** Stored and answered byte for byte, never read by Arbor, never sent to a model. */
export type ClientData = Record<string, unknown>;

export interface BlockExtras {
  clientData?: ClientData;
}

export interface TextBlock extends BlockExtras {
  type: 'text';
  text: string;
}

export type ImageMediaTypeName = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';

export interface Base64ImageSource {
  type: 'base64';
  media_type: ImageMediaTypeName;
  data: string;
}

export interface UrlImageSource {
  type: 'url';
  url: string;
}

/** Who issued a file id: a file id is only meaningful to the provider that stored the file. */
export type FileProvider = 'anthropic' | 'openai' | 'gemini';

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

export interface Base64ImageBlock extends ImageBlock {
  source: Base64ImageSource;
}

export const isBase64Image = (block: ImageBlock): block is Base64ImageBlock =>
  block.source.type === 'base64';

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

export type ToolResultContentBlock = TextBlock | ImageBlock;

export interface ToolResultBlock extends BlockExtras {
  type: 'tool_result';
  tool_use_id: string;
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

/** Kept byte-exact; sent back only to the Responses API of the model family that produced it. */
export interface ReasoningBlock extends BlockExtras {
  type: 'reasoning';
  id?: string;
  summary: ReasoningSummaryText[];
  encrypted_content?: string;
}

export type OpaqueProvider = 'anthropic' | 'openai';

/** Kept byte for byte and sent only to `provider`; a `compaction` item stands for all before it. */
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

export interface Usage {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
}

export interface MessageInput {
  id?: string;
  role: Role;
  content: Block[];
  pinned?: boolean;
  model?: string;
  usage?: Usage;
  metadata?: Record<string, unknown>;
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
  turnId: string;
  createdAt: string;
}
