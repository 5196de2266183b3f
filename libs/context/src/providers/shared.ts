import type {
  Block,
  ImageBlock,
  ImageSource,
  Message,
  TextBlock,
  ToolResultBlock,
  ToolResultContentBlock,
  ToolUseBlock,
} from '@arbor/domain/messages';

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

export function dataUrl(source: ImageSource): string {
  return `data:${source.media_type};base64,${source.data}`;
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
