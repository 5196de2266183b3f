import type {
  Base64ImageSource,
  Block,
  ImageBlock,
  ImageSource,
  Message,
  ProviderBlock,
  TextBlock,
  ToolResultBlock,
  ToolResultContentBlock,
  ToolUseBlock,
} from '@arbor/domain/messages';
import type { ProviderName } from '../types';

/** Which provider produced a message, as far as its `model` (or `metadata.provider`) tells. */
export type Origin = 'anthropic' | 'openai' | 'gemini' | 'unknown';

const ORIGIN_BY_PROVIDER: Record<string, Origin> = {
  anthropic: 'anthropic',
  openai: 'openai',
  'openai-chat': 'openai',
  'openai-responses': 'openai',
  gemini: 'gemini',
  google: 'gemini',
};

export function originOf(message: Pick<Message, 'model' | 'metadata'>): Origin {
  const declared = message.metadata?.['provider'];
  if (typeof declared === 'string' && declared in ORIGIN_BY_PROVIDER) {
    return ORIGIN_BY_PROVIDER[declared];
  }
  const model = (message.model ?? '').toLowerCase();
  if (model.startsWith('claude')) return 'anthropic';
  if (model.startsWith('gemini')) return 'gemini';
  if (/^(gpt|o\d|chatgpt|codex|computer-use)/.test(model)) return 'openai';
  return 'unknown';
}

/**
 * `items.flatMap(fn)` for callbacks that return arrays, as a plain loop: V8's generic flatMap
 * costs several times more, and the encoders call it for every message of every request.
 */
export function flatMapped<T, U>(
  items: readonly T[],
  fn: (item: T, index: number) => readonly U[],
): U[] {
  const out: U[] = [];
  for (let i = 0; i < items.length; i++) {
    const mapped = fn(items[i], i);
    for (let k = 0; k < mapped.length; k++) out.push(mapped[k]);
  }
  return out;
}

/** Any character `String.prototype.trim` would keep (`\s` is exactly what it strips). */
const NON_BLANK = /\S/;

/**
 * Text the provider would reject as empty ("" or whitespace only). Scans to the first other
 * character and copies nothing (`trim` copies a text that ends in a newline).
 */
export function isBlankText(text: string): boolean {
  return !NON_BLANK.test(text);
}

export function isUsableText(block: Block): block is TextBlock {
  return block.type === 'text' && !isBlankText(block.text);
}

export function dataUrl(source: Base64ImageSource): string {
  return `data:${source.media_type};base64,${source.data}`;
}

/** The URL an OpenAI format gets for an image: a data URL of the bytes, or the image's URL. */
export function imageUrl(source: ImageSource, provider: ProviderName): string {
  if (source.type === 'base64') return dataUrl(source);
  if (source.type === 'url') return source.url;
  throw new UnsupportedImageSourceError(
    provider,
    '',
    'source',
    'file',
    imageSourceProblem(source, provider) ?? `a ${source.provider} file id cannot be sent here`,
  );
}

/** A tool result's content as blocks, whatever shape it was stored in. */
export function toolResultBlocks(block: ToolResultBlock): ToolResultContentBlock[] {
  if (typeof block.content === 'string') {
    return block.content === '' ? [] : [{ type: 'text', text: block.content }];
  }
  return block.content;
}

/** The text of a tool result, blocks joined by a newline; images are left out. */
export function toolResultText(block: ToolResultBlock): string {
  if (typeof block.content === 'string') return block.content; // what the blocks would join to
  return toolResultBlocks(block)
    .filter((b): b is TextBlock => b.type === 'text')
    .map((b) => b.text)
    .join('\n');
}

export function toolResultImages(block: ToolResultBlock): ImageBlock[] {
  if (typeof block.content === 'string') return [];
  return toolResultBlocks(block).filter((b): b is ImageBlock => b.type === 'image');
}

/**
 * OpenAI and Gemini have no `is_error` flag on a tool result, so the error is said in the output
 * itself; Anthropic keeps `is_error`.
 */
export const TOOL_ERROR_PREFIX = '[tool error] ';

/** Placeholder for a tool that returned nothing: OpenAI tool outputs must not be empty. */
export const EMPTY_TOOL_OUTPUT = '(no output)';

export function toolOutputText(block: ToolResultBlock): string {
  const text = toolResultText(block);
  const body = isBlankText(text) ? EMPTY_TOOL_OUTPUT : text;
  return block.is_error ? TOOL_ERROR_PREFIX + body : body;
}

/** Tool name for every tool_use id in the history (Gemini names results, not ids). */
export function toolNamesById(messages: readonly Message[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const message of messages) {
    for (const block of message.content) {
      if (block.type === 'tool_use') names.set(block.id, block.name);
    }
  }
  return names;
}

/** The tool_use blocks of a message, in order. */
export function toolUses(message: Message | undefined): ToolUseBlock[] {
  if (!message) return [];
  return message.content.filter((b): b is ToolUseBlock => b.type === 'tool_use');
}

/**
 * Tool results sorted into the order of the calls of the assistant message before them (results
 * of unknown calls keep their relative order, after the known ones).
 */
export function inCallOrder(
  results: readonly ToolResultBlock[],
  previous: Message | undefined,
): ToolResultBlock[] {
  if (results.length < 2) return [...results]; // nothing to sort (most results come alone)
  const order = new Map(toolUses(previous).map((call, index) => [call.id, index]));
  const rank = (r: ToolResultBlock) => order.get(r.tool_use_id) ?? Number.MAX_SAFE_INTEGER;
  return results
    .map((result, index) => ({ result, index }))
    .sort((a, b) => rank(a.result) - rank(b.result) || a.index - b.index)
    .map(({ result }) => result);
}

/** The text of a system message, its text blocks joined by a blank line. */
export function systemText(message: Message): string {
  return message.content
    .filter((b): b is TextBlock => b.type === 'text')
    .map((b) => b.text)
    .filter((t) => !isBlankText(t))
    .join('\n\n');
}

/** The request-level system prompt followed by the history's system messages. */
export function collectSystem(system: string | undefined, messages: readonly Message[]): string[] {
  const parts = system !== undefined && !isBlankText(system) ? [system] : [];
  for (const message of messages) {
    if (message.role !== 'system') continue;
    const text = systemText(message);
    if (text !== '') parts.push(text);
  }
  return parts;
}

/** JSON text of a tool input, as OpenAI's `arguments` wants it. */
export function argumentsJson(input: unknown): string {
  return JSON.stringify(input ?? {});
}

/** Gemini's `args` and `response` are protobuf Structs: they must be JSON objects. */
export function asJsonObject(value: unknown): Record<string, unknown> {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    return value as Record<string, unknown>;
  }
  return value === undefined ? {} : { value };
}

/**
 * A model's family: the name (lower case, a `vendor/` prefix left out) up to the end of its
 * first number — `claude-opus-4-5-20251101` → `claude-opus-4`, `gpt-5.1-codex` → `gpt-5`,
 * `o4-mini` → `o4`, `gemini-2.5-pro` → `gemini-2`. Opaque provider data (OpenAI reasoning and
 * compaction items, Anthropic compaction blocks) is sent back only within one family.
 */
export function modelFamily(model: string): string {
  const name = model.toLowerCase().replace(/^.*\//, '');
  const match = /^[a-z-]*?\d+/.exec(name);
  return match === null ? name : match[0];
}

/** Whether data made by `producer` (unknown: yes) may be sent to `target`'s family. */
export function sameFamily(producer: string | undefined, target: string): boolean {
  return producer === undefined || modelFamily(producer) === modelFamily(target);
}

/** Which target provider format carries an opaque provider block. */
const PROVIDER_BLOCK_TARGET: Record<ProviderBlock['provider'], ProviderName> = {
  anthropic: 'anthropic',
  openai: 'openai-responses',
};

/**
 * Whether an opaque provider block goes into a body for `provider`/`model`: only its own
 * provider's format, for the family of the model that produced it (the block's `model`, else
 * its message's).
 */
export function sendsProviderBlock(
  block: ProviderBlock,
  message: Pick<Message, 'model'>,
  provider: ProviderName,
  model: string,
): boolean {
  return (
    PROVIDER_BLOCK_TARGET[block.provider] === provider &&
    sameFamily(block.model ?? message.model, model)
  );
}

/** An OpenAI reasoning item goes back only to the Responses API, same family, OpenAI-made. */
export function sendsReasoning(
  message: Pick<Message, 'model' | 'metadata'>,
  provider: ProviderName,
  model: string,
): boolean {
  if (provider !== 'openai-responses') return false;
  const origin = originOf(message);
  return (origin === 'openai' || origin === 'unknown') && sameFamily(message.model, model);
}

const isCompaction = (block: Block): block is ProviderBlock =>
  block.type === 'provider' && block.item['type'] === 'compaction';

/**
 * Provider-side compaction: a `compaction` block (Anthropic server-side compaction, content
 * block `{type:'compaction', content}`; OpenAI `/responses/compact`, item `{type:'compaction',
 * id, encrypted_content}`) stands for everything before it. For a target that receives it, the
 * history is cut there: the messages before the last such block are neither sent nor counted
 * (system messages are kept: they are the system prompt; for Anthropic, the user message that
 * opened the compacting turn is kept too, as the API wants a user turn first), and its own
 * message starts at the block. For any other target, nothing changes (the block itself is dropped by the encoder).
 * Returns `messages` itself when nothing is cut, so bodies without compactions are unchanged.
 */
export function cutAtProviderCompaction(
  messages: readonly Message[],
  provider: ProviderName,
  model: string,
): readonly Message[] {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message.role !== 'assistant') continue;
    let at = -1;
    for (let k = message.content.length - 1; k >= 0 && at < 0; k--) {
      const block = message.content[k];
      if (isCompaction(block) && sendsProviderBlock(block, message, provider, model)) at = k;
    }
    if (at < 0) continue;
    // Anthropic wants the messages to start with a user turn: the turn that produced the
    // compaction is kept from the user message that opened it (the API itself drops what is
    // before the block). An OpenAI compaction item may open the input.
    let from = i;
    if (provider === 'anthropic') {
      from = 0;
      for (let j = i - 1; j >= 0; j--) {
        const m = messages[j];
        if (m.role === 'user' && m.content.some((b) => b.type !== 'tool_result')) {
          from = j;
          break;
        }
      }
    }
    const head = messages.slice(0, from).filter((m) => m.role === 'system');
    const first = at === 0 ? message : { ...message, content: message.content.slice(at) };
    return [...head, ...messages.slice(from, i), first, ...messages.slice(i + 1)];
  }
  return messages;
}

/** Thrown at context time for an image source the target provider cannot take (a 400). */
export class UnsupportedImageSourceError extends Error {
  readonly code = 'unsupported_image_source';
  constructor(
    readonly provider: ProviderName,
    readonly messageId: string,
    readonly path: string,
    readonly source: 'url' | 'file',
    detail: string,
  ) {
    super(detail);
    this.name = 'UnsupportedImageSourceError';
  }
}

/**
 * Why `provider` cannot take this image source (null: it can). Anthropic takes URLs and its own
 * file ids; openai-chat takes URLs only (`image_url`); openai-responses URLs and OpenAI file ids
 * (`input_image.file_id`); Gemini only its own files (`fileData`, with a media type).
 */
export function imageSourceProblem(source: ImageSource, provider: ProviderName): string | null {
  if (source.type === 'base64') return null;
  if (source.type === 'url') {
    return provider === 'gemini'
      ? 'gemini takes no image URLs (fileData needs a Files API URI): send the bytes as base64'
      : null;
  }
  const owner = source.provider;
  const ok =
    (owner === 'anthropic' && provider === 'anthropic') ||
    (owner === 'openai' && provider === 'openai-responses') ||
    (owner === 'gemini' && provider === 'gemini' && source.media_type !== undefined);
  if (ok) return null;
  if (owner === 'gemini' && provider === 'gemini') return 'a gemini file needs its media_type';
  return provider === 'openai-chat' && owner === 'openai'
    ? 'openai-chat takes no image file ids: use openai-responses, a URL or base64'
    : `a ${owner} file id cannot be sent to ${provider}`;
}

/** Throws `UnsupportedImageSourceError` for the first image `provider` cannot take. */
export function checkImageSources(messages: readonly Message[], provider: ProviderName): void {
  for (const message of messages) {
    message.content.forEach((block, k) => {
      const check = (source: ImageSource, path: string) => {
        const problem = imageSourceProblem(source, provider);
        if (problem !== null && source.type !== 'base64')
          throw new UnsupportedImageSourceError(provider, message.id, path, source.type, problem);
      };
      if (block.type === 'image') check(block.source, `content[${k}].source`);
      if (block.type === 'tool_result' && typeof block.content !== 'string') {
        block.content.forEach((inner, j) => {
          if (inner.type === 'image') check(inner.source, `content[${k}].content[${j}].source`);
        });
      }
    });
  }
}
