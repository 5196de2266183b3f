/** Never throws. Unknown fields are dropped, unknown block types refused. */
import {
  ID_PATTERN,
  MODEL_PATTERN,
  MODEL_RULE,
  TOOL_CALL_ID_PATTERN,
  TOOL_CALL_ID_RULE,
} from './ids';
import {
  checkBase64,
  decodedLength,
  DEFAULT_MAX_IMAGE_BYTES,
  IMAGE_MEDIA_TYPES,
  type ImageMediaType,
} from './base64-image';
import { isImageHeader, readImageHeaderBase64 } from './image-header';
import { type Violation } from './errors';
import {
  type Block,
  type BlockType,
  type FileProvider,
  type ImageBlock,
  type ImageSource,
  type OpaqueProvider,
  type ProviderBlock,
  type ReasoningBlock,
  type ReasoningSummaryText,
  type MessageInput,
  type RedactedThinkingBlock,
  type Role,
  type TextBlock,
  type ThinkingBlock,
  type ToolResultBlock,
  type ToolResultContentBlock,
  type ToolUseBlock,
  type Usage,
} from './messages';

export type ValidationCode =
  | 'invalid_type'
  | 'required'
  | 'invalid_role'
  | 'unknown_block_type'
  | 'block_not_allowed'
  | 'empty_text'
  | 'empty_string'
  | 'empty_content'
  | 'invalid_base64'
  | 'unsupported_source_type'
  | 'unsupported_media_type'
  | 'media_type_mismatch'
  | 'unrecognized_image'
  | 'invalid_image'
  | 'image_dimensions'
  | 'image_too_large'
  | 'invalid_message_id'
  | 'invalid_tool_call_id'
  | 'invalid_model'
  | 'invalid_number'
  | 'invalid_url'
  | 'unknown_provider'
  | 'too_deep';

export type ValidationIssue = Violation<ValidationCode>;

export type ParseResult<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly errors: readonly ValidationIssue[] };

export interface ParseOptions {
  maxImageBytes?: number;
  path?: string;
}

export const MESSAGE_ID_PATTERN = ID_PATTERN;
export const ROLES: readonly Role[] = ['system', 'user', 'assistant'];
export const BLOCK_TYPES: readonly BlockType[] = [
  'text',
  'image',
  'tool_use',
  'tool_result',
  'thinking',
  'redacted_thinking',
  'reasoning',
  'provider',
];

/** Which blocks each role may carry (providers reject the rest). */
export const BLOCKS_BY_ROLE: Readonly<Record<Role, readonly BlockType[]>> = {
  system: ['text'],
  user: ['text', 'image', 'tool_result'],
  assistant: ['text', 'tool_use', 'thinking', 'redacted_thinking', 'reasoning', 'provider'],
};

export const FILE_PROVIDERS: readonly FileProvider[] = ['anthropic', 'openai', 'gemini'];
export const OPAQUE_PROVIDERS: readonly OpaqueProvider[] = ['anthropic', 'openai'];
/** Longest image URL accepted (providers cap theirs near this; data: URLs go in as base64). */
export const MAX_IMAGE_URL_LENGTH = 8192;

interface Ctx {
  readonly errors: ValidationIssue[];
  readonly maxImageBytes: number;
}

type Obj = Record<string, unknown>;

const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const kindOf = (v: unknown): string =>
  v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v;

const report = (ctx: Ctx, path: string, code: ValidationCode, message: string): undefined => {
  ctx.errors.push({ path, code, message });
  return undefined;
};

const has = (obj: Obj, key: string): boolean => Object.prototype.hasOwnProperty.call(obj, key);

const stringField = (
  ctx: Ctx,
  obj: Obj,
  key: string,
  path: string,
  emptyCode?: ValidationCode,
): string | undefined => {
  const p = `${path}.${key}`;
  if (!has(obj, key) || obj[key] === undefined)
    return report(ctx, p, 'required', `${key} is required`);
  const v = obj[key];
  if (typeof v !== 'string') {
    return report(ctx, p, 'invalid_type', `${key} must be a string, got ${kindOf(v)}`);
  }
  if (emptyCode !== undefined && v.length === 0) {
    return report(ctx, p, emptyCode, `${key} must not be empty`);
  }
  return v;
};

const parseText = (ctx: Ctx, obj: Obj, path: string): TextBlock | undefined => {
  const text = stringField(ctx, obj, 'text', path, 'empty_text');
  return text === undefined ? undefined : { type: 'text', text };
};

export interface ImageDataProblem {
  readonly field: 'data' | 'media_type';
  readonly code: ValidationCode;
  readonly message: string;
}

export const imageDataProblem = (
  data: string,
  declared: ImageMediaType | undefined,
  maxBytes: number,
): ImageDataProblem | null => {
  const problem = checkBase64(data);
  if (problem !== null)
    return {
      field: 'data',
      code: 'invalid_base64',
      message: `data is not strict base64 (${problem})`,
    };
  const size = decodedLength(data);
  if (size > maxBytes)
    return {
      field: 'data',
      code: 'image_too_large',
      message: `image is ${size} bytes; the limit is ${maxBytes}`,
    };
  const header = readImageHeaderBase64(data);
  if (!isImageHeader(header)) {
    const code =
      header.problem === 'unknown_format'
        ? 'unrecognized_image'
        : header.problem === 'dimensions'
          ? 'image_dimensions'
          : 'invalid_image';
    return { field: 'data', code, message: header.detail };
  }
  if (declared !== undefined && header.mediaType !== declared)
    return {
      field: 'media_type',
      code: 'media_type_mismatch',
      message: `declared ${declared} but the data is ${header.mediaType}`,
    };
  return null;
};

const checkImageData = (
  ctx: Ctx,
  data: string,
  declared: ImageMediaType | undefined,
  path: string,
): void => {
  const problem = imageDataProblem(data, declared, ctx.maxImageBytes);
  if (problem !== null) report(ctx, `${path}.${problem.field}`, problem.code, problem.message);
};

const parseMediaType = (
  ctx: Ctx,
  source: Obj,
  sp: string,
  required: boolean,
): ImageMediaType | undefined | null => {
  if (!required && source.media_type === undefined) return null;
  const mediaType = stringField(ctx, source, 'media_type', sp);
  const known = IMAGE_MEDIA_TYPES.find((m) => m === mediaType);
  if (mediaType !== undefined && known === undefined) {
    report(
      ctx,
      `${sp}.media_type`,
      'unsupported_media_type',
      `media_type must be one of ${IMAGE_MEDIA_TYPES.join(', ')}, got "${mediaType}"`,
    );
  }
  return known;
};

export const IMAGE_URL_PATTERN = /^https?:\/\/[^\s]+$/i;

const parseUrlSource = (ctx: Ctx, source: Obj, sp: string): ImageSource | undefined => {
  const url = stringField(ctx, source, 'url', sp, 'empty_string');
  if (url === undefined) return undefined;
  if (url.length > MAX_IMAGE_URL_LENGTH || !IMAGE_URL_PATTERN.test(url)) {
    return report(
      ctx,
      `${sp}.url`,
      'invalid_url',
      `url must be an http(s) URL of at most ${MAX_IMAGE_URL_LENGTH} characters (send bytes as base64)`,
    );
  }
  return { type: 'url', url };
};

const parseFileSource = (ctx: Ctx, source: Obj, sp: string): ImageSource | undefined => {
  const before = ctx.errors.length;
  const provider = stringField(ctx, source, 'provider', sp);
  const known = FILE_PROVIDERS.find((p) => p === provider);
  if (provider !== undefined && known === undefined) {
    report(
      ctx,
      `${sp}.provider`,
      'unknown_provider',
      `provider must be one of ${FILE_PROVIDERS.join(', ')}, got "${provider}"`,
    );
  }
  const fileId = stringField(ctx, source, 'file_id', sp, 'empty_string');
  const mediaType = parseMediaType(ctx, source, sp, known === 'gemini');
  if (ctx.errors.length > before || known === undefined || fileId === undefined) return undefined;
  if (mediaType === undefined) return undefined;
  return mediaType === null
    ? { type: 'file', provider: known, file_id: fileId }
    : { type: 'file', provider: known, file_id: fileId, media_type: mediaType };
};

const parseImage = (ctx: Ctx, obj: Obj, path: string): ImageBlock | undefined => {
  const sp = `${path}.source`;
  const source = obj.source;
  if (source === undefined) return report(ctx, sp, 'required', 'source is required');
  if (!isObject(source))
    return report(ctx, sp, 'invalid_type', `source must be an object, got ${kindOf(source)}`);
  const before = ctx.errors.length;
  const type = stringField(ctx, source, 'type', sp);
  if (type === 'url' || type === 'file') {
    const parsed =
      type === 'url' ? parseUrlSource(ctx, source, sp) : parseFileSource(ctx, source, sp);
    return parsed === undefined ? undefined : { type: 'image', source: parsed };
  }
  if (type !== undefined && type !== 'base64') {
    report(
      ctx,
      `${sp}.type`,
      'unsupported_source_type',
      `source.type must be "base64", "url" or "file", got "${type}"`,
    );
  }
  const known = parseMediaType(ctx, source, sp, true) ?? undefined;
  const data = stringField(ctx, source, 'data', sp);
  if (data !== undefined) checkImageData(ctx, data, known, sp);
  if (ctx.errors.length > before || known === undefined || data === undefined) return undefined;
  return { type: 'image', source: { type: 'base64', media_type: known, data } };
};

const shapedField = (
  ctx: Ctx,
  obj: Obj,
  key: string,
  path: string,
  pattern: RegExp,
  code: ValidationCode,
  rule: string,
): string | undefined => {
  const v = stringField(ctx, obj, key, path, 'empty_string');
  if (v === undefined || pattern.test(v)) return v;
  return report(ctx, `${path}.${key}`, code, `${key} ${rule}`);
};

const parseToolUse = (ctx: Ctx, obj: Obj, path: string): ToolUseBlock | undefined => {
  const id = shapedField(
    ctx,
    obj,
    'id',
    path,
    TOOL_CALL_ID_PATTERN,
    'invalid_tool_call_id',
    TOOL_CALL_ID_RULE,
  );
  const name = stringField(ctx, obj, 'name', path, 'empty_string');
  const input = obj.input;
  if (input === undefined) return report(ctx, `${path}.input`, 'required', 'input is required');
  if (!isObject(input)) {
    return report(
      ctx,
      `${path}.input`,
      'invalid_type',
      `input must be an object, got ${kindOf(input)}`,
    );
  }
  if (id === undefined || name === undefined) return undefined;
  return { type: 'tool_use', id, name, input };
};

const parseToolResultContent = (
  ctx: Ctx,
  content: unknown,
  path: string,
): string | ToolResultContentBlock[] | undefined => {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) {
    return report(
      ctx,
      path,
      'invalid_type',
      `content must be a string or an array, got ${kindOf(content)}`,
    );
  }
  const blocks: ToolResultContentBlock[] = [];
  content.forEach((item, i) => {
    const block = parseBlock(ctx, item, `${path}[${i}]`, ['text', 'image'], 'a tool_result');
    if (block !== undefined) blocks.push(block as ToolResultContentBlock);
  });
  return blocks.length === content.length ? blocks : undefined;
};

const parseToolResult = (ctx: Ctx, obj: Obj, path: string): ToolResultBlock | undefined => {
  const toolUseId = shapedField(
    ctx,
    obj,
    'tool_use_id',
    path,
    TOOL_CALL_ID_PATTERN,
    'invalid_tool_call_id',
    TOOL_CALL_ID_RULE,
  );
  const cp = `${path}.content`;
  const content =
    obj.content === undefined
      ? report(ctx, cp, 'required', 'content is required (a string or text/image blocks)')
      : parseToolResultContent(ctx, obj.content, cp);
  const name =
    obj.name === undefined ? undefined : stringField(ctx, obj, 'name', path, 'empty_string');
  if (obj.name !== undefined && name === undefined) return undefined;
  const isError = obj.is_error;
  if (isError !== undefined && typeof isError !== 'boolean') {
    return report(
      ctx,
      `${path}.is_error`,
      'invalid_type',
      `is_error must be a boolean, got ${kindOf(isError)}`,
    );
  }
  if (toolUseId === undefined || content === undefined) return undefined;
  const block: ToolResultBlock =
    name === undefined
      ? { type: 'tool_result', tool_use_id: toolUseId, content }
      : { type: 'tool_result', tool_use_id: toolUseId, name, content };
  return isError === undefined ? block : { ...block, is_error: isError };
};

const parseThinking = (ctx: Ctx, obj: Obj, path: string): ThinkingBlock | undefined => {
  const thinking = stringField(ctx, obj, 'thinking', path);
  const signature = stringField(ctx, obj, 'signature', path);
  if (thinking === undefined || signature === undefined) return undefined;
  return { type: 'thinking', thinking, signature };
};

const parseRedacted = (ctx: Ctx, obj: Obj, path: string): RedactedThinkingBlock | undefined => {
  const data = stringField(ctx, obj, 'data', path, 'empty_string');
  return data === undefined ? undefined : { type: 'redacted_thinking', data };
};

const parseSummary = (
  ctx: Ctx,
  value: unknown,
  path: string,
): ReasoningSummaryText[] | undefined => {
  if (value === undefined) return report(ctx, path, 'required', 'summary is required (may be [])');
  if (!Array.isArray(value))
    return report(ctx, path, 'invalid_type', `summary must be an array, got ${kindOf(value)}`);
  const out: ReasoningSummaryText[] = [];
  value.forEach((item, i) => {
    const p = `${path}[${i}]`;
    if (!isObject(item)) {
      report(ctx, p, 'invalid_type', `a summary part must be an object, got ${kindOf(item)}`);
      return;
    }
    const type = stringField(ctx, item, 'type', p);
    if (type !== undefined && type !== 'summary_text') {
      report(ctx, `${p}.type`, 'invalid_type', `summary part type must be "summary_text"`);
      return;
    }
    const text = stringField(ctx, item, 'text', p);
    if (type !== undefined && text !== undefined) out.push({ type: 'summary_text', text });
  });
  return out.length === value.length ? out : undefined;
};

const parseReasoning = (ctx: Ctx, obj: Obj, path: string): ReasoningBlock | undefined => {
  const id = obj.id === undefined ? null : stringField(ctx, obj, 'id', path, 'empty_string');
  const summary = parseSummary(ctx, obj.summary, `${path}.summary`);
  const encrypted =
    obj.encrypted_content === undefined
      ? null
      : stringField(ctx, obj, 'encrypted_content', path, 'empty_string');
  if (id === undefined || summary === undefined || encrypted === undefined) return undefined;
  const block: ReasoningBlock =
    id === null ? { type: 'reasoning', summary } : { type: 'reasoning', id, summary };
  return encrypted === null ? block : { ...block, encrypted_content: encrypted };
};

const parseProviderBlock = (ctx: Ctx, obj: Obj, path: string): ProviderBlock | undefined => {
  const before = ctx.errors.length;
  const provider = stringField(ctx, obj, 'provider', path);
  const known = OPAQUE_PROVIDERS.find((p) => p === provider);
  if (provider !== undefined && known === undefined) {
    report(
      ctx,
      `${path}.provider`,
      'unknown_provider',
      `provider must be one of ${OPAQUE_PROVIDERS.join(', ')}, got "${provider}"`,
    );
  }
  const model =
    obj.model === undefined ? null : stringField(ctx, obj, 'model', path, 'empty_string');
  const item = obj.item;
  if (item === undefined) report(ctx, `${path}.item`, 'required', 'item is required');
  else if (!isObject(item))
    report(ctx, `${path}.item`, 'invalid_type', `item must be an object, got ${kindOf(item)}`);
  else stringField(ctx, item, 'type', `${path}.item`, 'empty_string');
  if (ctx.errors.length > before || known === undefined || !isObject(item)) return undefined;
  if (model === undefined) return undefined;
  return model === null
    ? { type: 'provider', provider: known, item }
    : { type: 'provider', provider: known, model, item };
};

const PARSERS: Record<BlockType, (ctx: Ctx, obj: Obj, path: string) => Block | undefined> = {
  text: parseText,
  image: parseImage,
  tool_use: parseToolUse,
  tool_result: parseToolResult,
  thinking: parseThinking,
  redacted_thinking: parseRedacted,
  reasoning: parseReasoning,
  provider: parseProviderBlock,
};

const parseClientData = (ctx: Ctx, obj: Obj, path: string): Obj | null | undefined => {
  const value = obj.clientData;
  if (value === undefined) return null;
  if (!isObject(value)) {
    return report(
      ctx,
      `${path}.clientData`,
      'invalid_type',
      `clientData must be an object, got ${kindOf(value)}`,
    );
  }
  return value;
};

function parseBlock(
  ctx: Ctx,
  value: unknown,
  path: string,
  allowed: readonly BlockType[],
  where: string,
): Block | undefined {
  if (!isObject(value))
    return report(ctx, path, 'invalid_type', `a block must be an object, got ${kindOf(value)}`);
  const type = stringField(ctx, value, 'type', path);
  if (type === undefined) return undefined;
  const known = BLOCK_TYPES.find((t) => t === type);
  if (known === undefined) {
    return report(
      ctx,
      `${path}.type`,
      'unknown_block_type',
      `unknown block type "${type}"; expected one of ${BLOCK_TYPES.join(', ')}`,
    );
  }
  if (!allowed.includes(known)) {
    return report(
      ctx,
      `${path}.type`,
      'block_not_allowed',
      `a ${known} block is not allowed in ${where}`,
    );
  }
  const clientData = parseClientData(ctx, value, path);
  const block = PARSERS[known](ctx, value, path);
  if (block === undefined || clientData === undefined) return undefined;
  return clientData === null ? block : { ...block, clientData };
}

const USAGE_COUNTS = [
  'input_tokens',
  'output_tokens',
  'cache_read_input_tokens',
  'cache_creation_input_tokens',
] as const;
const OPENAI_COUNTS = ['prompt_tokens', 'completion_tokens'] as const;
const OPENAI_DETAILS = ['prompt_tokens_details', 'input_tokens_details'] as const;

const isCount = (v: unknown): v is number | null | undefined =>
  v === undefined || v === null || (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0);

const parseUsage = (ctx: Ctx, value: unknown, path: string): Usage | undefined => {
  if (!isObject(value))
    return report(ctx, path, 'invalid_type', `usage must be an object, got ${kindOf(value)}`);
  const before = ctx.errors.length;
  const checkCount = (v: unknown, field: string): void => {
    if (!isCount(v))
      report(ctx, `${path}.${field}`, 'invalid_number', `${field} must be a non-negative integer`);
  };
  for (const key of [...USAGE_COUNTS, ...OPENAI_COUNTS]) checkCount(value[key], key);
  for (const key of OPENAI_DETAILS) {
    const d = value[key];
    if (d === undefined) continue;
    if (isObject(d)) checkCount(d.cached_tokens, `${key}.cached_tokens`);
    else
      report(ctx, `${path}.${key}`, 'invalid_type', `${key} must be an object, got ${kindOf(d)}`);
  }
  if (ctx.errors.length > before) return undefined;
  const usage: Usage = {};
  for (const key of USAGE_COUNTS) {
    const v = value[key];
    if (typeof v === 'number') usage[key] = v;
  }
  const openai = openAIUsage(value);
  if (openai !== null) Object.assign(usage, openai);
  return usage;
};

/** OpenAI counts cached tokens in the prompt; neutral `input_tokens` are the uncached ones. */
const openAIUsage = (value: Record<string, unknown>): Usage | null => {
  const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);
  const chat = value.prompt_tokens_details as Obj | undefined;
  const responses = value.input_tokens_details as Obj | undefined;
  const prompt = num(value.prompt_tokens);
  const completion = num(value.completion_tokens);
  if (chat === undefined && responses === undefined && prompt === undefined) {
    return completion === undefined ? null : { output_tokens: completion };
  }
  const cached = num(chat?.cached_tokens) ?? num(responses?.cached_tokens) ?? 0;
  const total = prompt ?? num(value.input_tokens);
  const out: Usage = { cache_read_input_tokens: cached };
  if (total !== undefined) out.input_tokens = Math.max(0, total - cached);
  if (completion !== undefined) out.output_tokens = completion;
  return out;
};

const parseContent = (
  ctx: Ctx,
  value: unknown,
  path: string,
  role: Role | undefined,
): Block[] | undefined => {
  if (value === undefined) return report(ctx, path, 'required', 'content is required');
  if (!Array.isArray(value)) {
    return report(
      ctx,
      path,
      'invalid_type',
      `content must be an array of blocks, got ${kindOf(value)}`,
    );
  }
  if (value.length === 0) return report(ctx, path, 'empty_content', 'content must not be empty');
  const allowed = role === undefined ? BLOCK_TYPES : BLOCKS_BY_ROLE[role];
  const where = role === undefined ? 'this message' : `a ${role} message`;
  const blocks: Block[] = [];
  value.forEach((item, i) => {
    const block = parseBlock(ctx, item, `${path}[${i}]`, allowed, where);
    if (block !== undefined) blocks.push(block);
  });
  return blocks.length === value.length ? blocks : undefined;
};

const parseRole = (ctx: Ctx, obj: Obj, path: string): Role | undefined => {
  const role = stringField(ctx, obj, 'role', path);
  if (role === undefined) return undefined;
  const known = ROLES.find((r) => r === role);
  if (known === undefined) {
    return report(
      ctx,
      `${path}.role`,
      'invalid_role',
      `role must be one of ${ROLES.join(', ')}, got "${role}"`,
    );
  }
  return known;
};

type Optionals = Pick<
  MessageInput,
  'id' | 'pinned' | 'model' | 'usage' | 'metadata' | 'clientData'
>;

const parseOptionals = (ctx: Ctx, obj: Obj, path: string): Optionals | undefined => {
  const before = ctx.errors.length;
  const out: Optionals = {};
  if (obj.id !== undefined) {
    if (typeof obj.id !== 'string' || !MESSAGE_ID_PATTERN.test(obj.id)) {
      report(ctx, `${path}.id`, 'invalid_message_id', `id must match ${ID_PATTERN.source}`);
    } else out.id = obj.id;
  }
  if (obj.pinned !== undefined) {
    if (typeof obj.pinned !== 'boolean') {
      report(
        ctx,
        `${path}.pinned`,
        'invalid_type',
        `pinned must be a boolean, got ${kindOf(obj.pinned)}`,
      );
    } else out.pinned = obj.pinned;
  }
  if (obj.model !== undefined) {
    const model = shapedField(ctx, obj, 'model', path, MODEL_PATTERN, 'invalid_model', MODEL_RULE);
    if (model !== undefined) out.model = model;
  }
  if (obj.usage !== undefined) {
    const usage = parseUsage(ctx, obj.usage, `${path}.usage`);
    if (usage !== undefined) out.usage = usage;
  }
  if (obj.metadata !== undefined) {
    if (!isObject(obj.metadata)) {
      report(
        ctx,
        `${path}.metadata`,
        'invalid_type',
        `metadata must be an object, got ${kindOf(obj.metadata)}`,
      );
    } else out.metadata = obj.metadata;
  }
  const clientData = parseClientData(ctx, obj, path);
  if (clientData) out.clientData = clientData;
  return ctx.errors.length > before ? undefined : out;
};

/** Deepest JSON nesting a message may have; deeper values would overflow recursive walks. */
export const MAX_MESSAGE_DEPTH = 256;

/** Whether `value` nests deeper than `max` levels; iterative, so any depth is safe to check. */
export const nestsDeeperThan = (value: unknown, max: number): boolean => {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop() as [unknown, number];
    if (v === null || typeof v !== 'object') continue;
    if (depth >= max) return true;
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
};

const parseOne = (ctx: Ctx, value: unknown, path: string): MessageInput | undefined => {
  if (!isObject(value))
    return report(ctx, path, 'invalid_type', `a message must be an object, got ${kindOf(value)}`);
  const role = parseRole(ctx, value, path);
  const optionals = parseOptionals(ctx, value, path);
  const content = parseContent(ctx, value.content, `${path}.content`, role);
  if (role === undefined || content === undefined || optionals === undefined) return undefined;
  const { id, ...rest } = optionals;
  const message = id === undefined ? { role, content, ...rest } : { id, role, content, ...rest };
  // Measured on what is kept: a deep field that is dropped (unknown) is never walked.
  if (nestsDeeperThan(message, MAX_MESSAGE_DEPTH))
    return report(ctx, path, 'too_deep', `a message must nest at most ${MAX_MESSAGE_DEPTH} levels`);
  return message;
};

const newCtx = (options: ParseOptions): Ctx => ({
  errors: [],
  maxImageBytes: options.maxImageBytes ?? DEFAULT_MAX_IMAGE_BYTES,
});

export const parseMessage = (
  input: unknown,
  options: ParseOptions = {},
): ParseResult<MessageInput> => {
  const ctx = newCtx(options);
  const value = parseOne(ctx, input, options.path ?? 'message');
  return value !== undefined && ctx.errors.length === 0
    ? { ok: true, value }
    : { ok: false, errors: ctx.errors };
};

/** Parse the `messages` array of a turn. An empty array parses; the turn rules reject it. */
export const parseMessages = (
  input: unknown,
  options: ParseOptions = {},
): ParseResult<MessageInput[]> => {
  const ctx = newCtx(options);
  const path = options.path ?? 'messages';
  if (!Array.isArray(input)) {
    report(ctx, path, 'invalid_type', `messages must be an array, got ${kindOf(input)}`);
    return { ok: false, errors: ctx.errors };
  }
  const value: MessageInput[] = [];
  input.forEach((item, i) => {
    const message = parseOne(ctx, item, `${path}[${i}]`);
    if (message !== undefined) value.push(message);
  });
  return ctx.errors.length === 0 ? { ok: true, value } : { ok: false, errors: ctx.errors };
};
