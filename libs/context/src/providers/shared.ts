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

/** A plain loop: V8's generic flatMap costs several times more, and it runs for every message. */
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

const NON_BLANK = /\S/;

/** Scans to the first other character, copying nothing (`trim` copies). */
export function isBlankText(text: string): boolean {
  return !NON_BLANK.test(text);
}

export function isUsableText(block: Block): block is TextBlock {
  return block.type === 'text' && !isBlankText(block.text);
}

export function dataUrl(source: Base64ImageSource): string {
  return `data:${source.media_type};base64,${source.data}`;
}

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

export function toolResultBlocks(block: ToolResultBlock): ToolResultContentBlock[] {
  if (typeof block.content === 'string') {
    return block.content === '' ? [] : [{ type: 'text', text: block.content }];
  }
  return block.content;
}

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

/** OpenAI and Gemini have no `is_error` flag: the error is said in the output itself. */
export const TOOL_ERROR_PREFIX = '[tool error] ';

/** Placeholder for a tool that returned nothing: OpenAI tool outputs must not be empty. */
export const EMPTY_TOOL_OUTPUT = '(no output)';

export function toolOutputText(block: ToolResultBlock): string {
  const text = toolResultText(block);
  const body = isBlankText(text) ? EMPTY_TOOL_OUTPUT : text;
  return block.is_error ? TOOL_ERROR_PREFIX + body : body;
}

export function toolNamesById(messages: readonly Message[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const message of messages) {
    for (const block of message.content) {
      if (block.type === 'tool_use') names.set(block.id, block.name);
    }
  }
  return names;
}

export function toolUses(message: Message | undefined): ToolUseBlock[] {
  if (!message) return [];
  return message.content.filter((b): b is ToolUseBlock => b.type === 'tool_use');
}

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

export function systemText(message: Message): string {
  return message.content
    .filter((b): b is TextBlock => b.type === 'text')
    .map((b) => b.text)
    .filter((t) => !isBlankText(t))
    .join('\n\n');
}

export function collectSystem(system: string | undefined, messages: readonly Message[]): string[] {
  const parts = system !== undefined && !isBlankText(system) ? [system] : [];
  for (const message of messages) {
    if (message.role !== 'system') continue;
    const text = systemText(message);
    if (text !== '') parts.push(text);
  }
  return parts;
}

export function argumentsJson(input: unknown): string {
  return JSON.stringify(input ?? {});
}

export function asJsonObject(value: unknown): Record<string, unknown> {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    return value as Record<string, unknown>;
  }
  return value === undefined ? {} : { value };
}

/** `claude-opus-4-5-20251101` → `claude-opus-4`; opaque provider data stays within a family. */
export function modelFamily(model: string): string {
  const name = model.toLowerCase().replace(/^.*\//, '');
  const match = /^[a-z-]*?\d+/.exec(name);
  return match === null ? name : match[0];
}

export function sameFamily(producer: string | undefined, target: string): boolean {
  return producer === undefined || modelFamily(producer) === modelFamily(target);
}

const PROVIDER_BLOCK_TARGET: Record<ProviderBlock['provider'], ProviderName> = {
  anthropic: 'anthropic',
  openai: 'openai-responses',
};

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

/** A provider `compaction` block stands for all before it: for its target the history is cut. */
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
    // Anthropic wants a user turn first: the compacting turn is kept from its opening prompt.
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
