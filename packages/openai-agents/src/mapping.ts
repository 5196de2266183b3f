/**
 * `@openai/agents` items ↔ Arbor messages.
 *
 * Each item becomes one or more Arbor blocks carrying what a model needs (text, tool_use,
 * tool_result with its name, reasoning with id/summary/encrypted_content, images); whatever else
 * the item holds (item ids, status, providerData, the exact `arguments` string when it is not
 * canonical JSON) goes into the first block's `clientData.agents`, which Arbor keeps byte for
 * byte and never sends to a model. Decoding puts the two back together, so `fromArbor(toArbor(x))`
 * deep-equals `x`. Items Arbor has no block for (hosted tool calls, computer/shell calls and their
 * outputs, compaction, unknown) are stored whole as an OpenAI `provider` block on the assistant
 * side.
 */
import { type AgentInputItem } from '@openai/agents';
import { type Block, type JsonValue, type MessageInput } from '@arbor/client';

type Json = JsonValue;
type JsonObject = { [key: string]: Json };

/** An item (or part) Arbor cannot store as a block: an input file, audio, binary image data. */
export class UnsupportedItemError extends Error {
  constructor(readonly what: string) {
    super(`@arbor/openai-agents: cannot store ${what}`);
    this.name = 'UnsupportedItemError';
  }
}

/** The key under `clientData` this adapter owns. */
export const CLIENT_KEY = 'agents';

/** What `clientData.agents` of an item's first block holds. */
interface ItemData {
  /** How many blocks this item spans (absent = 1). */
  n?: number;
  /** The item without the fields its blocks carry. */
  rest: JsonObject;
  /** A message item whose content was a plain string. */
  str?: true;
  /** Per content part: the part without the fields its block carries (null = nothing left). */
  parts?: (JsonObject | null)[];
  /** function_call: the `arguments` string when it is not the canonical JSON of the input. */
  args?: string;
  /** function_call_result: `s` string output, `t` a bare text output, else the whole output. */
  out?: 's' | 't' | Json;
}

type Side = 'user' | 'assistant' | 'system';
interface Encoded {
  side: Side;
  blocks: Block[];
}

const isObject = (v: unknown): v is JsonObject =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A JSON copy (drops undefined, refuses binary), so what is stored is what comes back. */
const toJson = (value: unknown, what: string): JsonObject => {
  const seen = JSON.stringify(value, (_k, v: unknown) => {
    if (v instanceof Uint8Array || v instanceof ArrayBuffer) throw new UnsupportedItemError(what);
    return v;
  });
  return JSON.parse(seen) as JsonObject;
};

const omit = (o: JsonObject, keys: readonly string[]): JsonObject => {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(o)) if (!keys.includes(k)) out[k] = v;
  return out;
};

const withData = (block: Block, data: ItemData): Block =>
  ({ ...block, clientData: { [CLIENT_KEY]: data as unknown as Json } }) as Block;

type ImageMediaType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';
const MEDIA: readonly string[] = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

const imageBlock = (image: Json | undefined): Block => {
  if (typeof image === 'string') {
    const data = /^data:([^;,]+);base64,(.*)$/s.exec(image);
    if (data && MEDIA.includes(data[1]))
      return {
        type: 'image',
        source: { type: 'base64', media_type: data[1] as ImageMediaType, data: data[2] },
      };
    if (/^https?:\/\//.test(image)) return { type: 'image', source: { type: 'url', url: image } };
  }
  if (isObject(image) && typeof image.id === 'string')
    return { type: 'image', source: { type: 'file', provider: 'openai', file_id: image.id } };
  throw new UnsupportedItemError('an image that is not a URL, a base64 data URL or a file id');
};

const imageValue = (block: Extract<Block, { type: 'image' }>): Json => {
  const s = block.source;
  if (s.type === 'base64') return `data:${s.media_type};base64,${s.data}`;
  if (s.type === 'url') return s.url;
  return { id: s.file_id };
};

/** A message item's content parts as blocks, each part's leftovers kept aside. */
const messageParts = (
  content: Json[],
  role: string,
): { blocks: Block[]; parts: (JsonObject | null)[] } => {
  const blocks: Block[] = [];
  const parts: (JsonObject | null)[] = [];
  for (const raw of content) {
    if (!isObject(raw)) throw new UnsupportedItemError(`a ${role} content part that is no object`);
    const keep = (rest: JsonObject) => parts.push(Object.keys(rest).length > 0 ? rest : null);
    if ((raw.type === 'input_text' || raw.type === 'output_text') && typeof raw.text === 'string') {
      blocks.push({ type: 'text', text: raw.text });
      keep(omit(raw, ['text']));
    } else if (raw.type === 'refusal' && typeof raw.refusal === 'string') {
      blocks.push({ type: 'text', text: raw.refusal });
      keep(omit(raw, ['refusal']));
    } else if (raw.type === 'input_image' && role === 'user') {
      blocks.push(imageBlock(raw.image));
      keep(omit(raw, ['image']));
    } else {
      throw new UnsupportedItemError(`a ${role} ${String(raw.type)} part`);
    }
  }
  if (blocks.length === 0) throw new UnsupportedItemError(`a ${role} message without content`);
  return { blocks, parts };
};

/** One item as blocks of one side. */
export const encodeItem = (input: AgentInputItem): Encoded => {
  const item = toJson(
    input,
    `a ${String((input as { type?: string }).type)} item with binary data`,
  );
  const type = item.type;
  if (type === undefined || type === 'message') {
    const role = String(item.role);
    const side: Side = role === 'assistant' ? 'assistant' : role === 'system' ? 'system' : 'user';
    const rest = omit(item, ['content']);
    if (typeof item.content === 'string') {
      return {
        side,
        blocks: [withData({ type: 'text', text: item.content }, { rest, str: true })],
      };
    }
    const { blocks, parts } = messageParts(Array.isArray(item.content) ? item.content : [], role);
    const data: ItemData = { rest, parts };
    if (blocks.length > 1) data.n = blocks.length;
    return { side, blocks: [withData(blocks[0], data), ...blocks.slice(1)] };
  }
  if (type === 'function_call' && typeof item.arguments === 'string') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(item.arguments);
    } catch {
      parsed = undefined;
    }
    const input = isObject(parsed) ? parsed : {};
    const data: ItemData = { rest: omit(item, ['callId', 'name', 'arguments']) };
    if (JSON.stringify(input) !== item.arguments) data.args = item.arguments;
    const block: Block = {
      type: 'tool_use',
      id: String(item.callId),
      name: String(item.name),
      input,
    };
    return { side: 'assistant', blocks: [withData(block, data)] };
  }
  if (type === 'function_call_result') {
    const output = item.output;
    const data: ItemData = { rest: omit(item, ['callId', 'name', 'output']) };
    let content: string;
    if (typeof output === 'string') {
      content = output;
      data.out = 's';
    } else if (
      isObject(output) &&
      output.type === 'text' &&
      typeof output.text === 'string' &&
      Object.keys(output).length === 2
    ) {
      content = output.text;
      data.out = 't';
    } else {
      content = JSON.stringify(output);
      data.out = output ?? null;
    }
    const block: Block = {
      type: 'tool_result',
      tool_use_id: String(item.callId),
      name: String(item.name),
      content,
      ...(item.status === 'incomplete' ? { is_error: true } : {}),
    };
    return { side: 'user', blocks: [withData(block, data)] };
  }
  if (type === 'reasoning') {
    const content = Array.isArray(item.content) ? item.content.filter(isObject) : [];
    const provider = isObject(item.providerData) ? item.providerData : undefined;
    const encrypted =
      typeof provider?.encrypted_content === 'string' ? provider.encrypted_content : undefined;
    const rest = omit(item, ['id', 'content', 'providerData']);
    if (provider !== undefined) {
      const left = encrypted === undefined ? provider : omit(provider, ['encrypted_content']);
      // An empty left-over stands for "providerData held only encrypted_content".
      rest.providerData = left;
    }
    const parts = content.map((c) => {
      const left = omit(c, ['text', 'type']);
      return Object.keys(left).length > 0 ? left : null;
    });
    const data: ItemData = { rest };
    if (parts.some((p) => p !== null)) data.parts = parts;
    const block: Block = {
      type: 'reasoning',
      ...(typeof item.id === 'string' ? { id: item.id } : {}),
      summary: content.map((c) => ({ type: 'summary_text' as const, text: String(c.text) })),
      ...(encrypted !== undefined ? { encrypted_content: encrypted } : {}),
    };
    return { side: 'assistant', blocks: [withData(block, data)] };
  }
  // Hosted tool calls, computer/shell/apply_patch calls and outputs, compaction, unknown: whole.
  return {
    side: 'assistant',
    blocks: [withData({ type: 'provider', provider: 'openai', item }, { rest: {} })],
  };
};

const dataOf = (block: { clientData?: { [key: string]: Json } }): ItemData | undefined => {
  const d = block.clientData?.[CLIENT_KEY];
  return isObject(d) && isObject(d.rest) ? (d as unknown as ItemData) : undefined;
};

export interface ToArborOptions {
  /** Set as `model` on assistant messages (reasoning goes back only to its model family). */
  model?: string;
}

/**
 * Items as Arbor messages: consecutive assistant-side items (assistant messages, function
 * calls, reasoning, hosted items) form one assistant message; consecutive user-side items (user
 * messages, function_call_result) one user message, tool results first as Arbor's turns want.
 */
export const toArbor = (
  items: readonly AgentInputItem[],
  options: ToArborOptions = {},
): MessageInput[] => {
  const out: MessageInput[] = [];
  for (const item of items) {
    const { side, blocks } = encodeItem(item);
    const last = out[out.length - 1];
    if (last !== undefined && last.role === side && side !== 'system') {
      last.content.push(...blocks);
      continue;
    }
    out.push({
      role: side,
      content: [...blocks],
      ...(side === 'assistant' && options.model ? { model: options.model } : {}),
    });
  }
  return out;
};

type AnyBlock = Block & { clientData?: { [key: string]: Json } };

const decodeMessage = (role: string, blocks: AnyBlock[], data: ItemData | undefined): Json => {
  const rest = data?.rest ?? (role === 'user' ? { role } : { type: 'message', role });
  const parts = data?.parts ?? [];
  if (data?.str && blocks[0]?.type === 'text') return { ...rest, content: blocks[0].text };
  const content = blocks.map((b, i): Json => {
    const left = parts[i] ?? {};
    if (b.type === 'image') return { type: 'input_image', ...left, image: imageValue(b) };
    const text = b.type === 'text' ? b.text : '';
    if (left.type === 'refusal') return { ...left, refusal: text };
    return {
      type: role === 'assistant' ? 'output_text' : 'input_text',
      ...left,
      text,
    };
  });
  return { ...rest, content };
};

const decodeItem = (role: string, blocks: AnyBlock[]): Json => {
  const first = blocks[0];
  const data = dataOf(first);
  switch (first.type) {
    case 'tool_use': {
      const rest = data?.rest ?? { type: 'function_call' };
      return {
        ...rest,
        callId: first.id,
        name: first.name,
        arguments: data?.args ?? JSON.stringify(first.input),
      };
    }
    case 'tool_result': {
      const text =
        typeof first.content === 'string'
          ? first.content
          : first.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
      const rest = data?.rest ?? {
        type: 'function_call_result',
        status: first.is_error ? 'incomplete' : 'completed',
      };
      const out = data?.out;
      const output: Json =
        out === undefined || out === 't' ? { type: 'text', text } : out === 's' ? text : out;
      return { ...rest, name: first.name ?? '', callId: first.tool_use_id, output };
    }
    case 'reasoning': {
      const rest = { ...(data?.rest ?? { type: 'reasoning' }) };
      const provider = isObject(rest.providerData) ? rest.providerData : undefined;
      const item: JsonObject = {
        ...(first.id !== undefined ? { id: first.id } : {}),
        ...rest,
        content: first.summary.map((s, i) => ({
          type: 'input_text',
          text: s.text,
          ...(data?.parts?.[i] ?? {}),
        })),
      };
      delete item.providerData;
      if (provider !== undefined || first.encrypted_content !== undefined) {
        item.providerData = {
          ...(provider ?? {}),
          ...(first.encrypted_content !== undefined
            ? { encrypted_content: first.encrypted_content }
            : {}),
        };
      }
      return item;
    }
    case 'provider':
      return first.item;
    default:
      return decodeMessage(role, blocks, data);
  }
};

/** Arbor messages (as stored: blocks with their clientData) back to the items they came from. */
export const fromArbor = (
  messages: readonly { role: string; content: readonly AnyBlock[] }[],
): AgentInputItem[] => {
  const items: Json[] = [];
  for (const m of messages) {
    let i = 0;
    while (i < m.content.length) {
      const block = m.content[i];
      const data = dataOf(block);
      let n = data?.n ?? 1;
      if (data === undefined && block.type === 'text') {
        // Written by another client: the run of text/image blocks is one message item.
        n = 1;
        while (
          i + n < m.content.length &&
          (m.content[i + n].type === 'text' || m.content[i + n].type === 'image') &&
          dataOf(m.content[i + n]) === undefined
        )
          n++;
      }
      items.push(decodeItem(m.role, m.content.slice(i, i + n) as AnyBlock[]));
      i += n;
    }
  }
  return items as unknown as AgentInputItem[];
};
