/**
 * Transcript entries → Arbor turns. Every entry is kept whole, in order, in the `clientData` of
 * the Arbor message it belongs to (or the next one), so a load gives back exactly what was
 * appended; the messages themselves are a rendering under Arbor's turn rules, for the tree, the
 * audit log, contexts and the console.
 */
import { createHash } from 'node:crypto';
import { type MessageInput } from '@arbor/client';

/** One JSONL transcript line (the SDK's `SessionStoreEntry`). */
export type Entry = { type: string; uuid?: string; [k: string]: unknown };

type Block = MessageInput['content'][number];
type Role = 'user' | 'assistant';

/** Where a message keeps its entries: `clientData.claudeAgentSdk`. */
export interface Carried {
  entries: Entry[];
  /** The draft whose first `consumed` entries this turn took (see `ArborSessionStore`). */
  draft?: { id: string; consumed: number };
  /** A draft message standing in for entries that belong to no message yet. */
  carrier?: true;
}

export interface Rendered {
  role: Role;
  content: Block[];
  model?: string;
  id?: string;
  entries: Entry[];
}

const ID = /^[A-Za-z0-9_-]{1,128}$/;
const TOOL_ID = /^[A-Za-z0-9_.:|@/+=-]{1,256}$/;
const MODEL = /^[A-Za-z0-9_.:@/+<>=-]{1,200}$/;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export const hashOf = (value: unknown): string =>
  createHash('sha256').update(JSON.stringify(value)).digest('base64url').slice(0, 32);

const text = (t: string): Block[] => (t.length > 0 ? [{ type: 'text', text: t }] : []);

const asText = (value: unknown): string =>
  typeof value === 'string' ? value : JSON.stringify(value);

/** The text a tool result carries, for a result Arbor's turn rules cannot place. */
const resultText = (b: Record<string, unknown>): string => {
  const c = b.content;
  if (typeof c === 'string') return c;
  if (Array.isArray(c))
    return c
      .map((x) => (isObject(x) && typeof x.text === 'string' ? x.text : asText(x)))
      .join('\n');
  return asText(c ?? '');
};

const toolResultContent = (c: unknown): string | Block[] => {
  if (typeof c === 'string') return c;
  if (!Array.isArray(c)) return asText(c ?? '');
  const out: Block[] = [];
  for (const x of c) {
    if (isObject(x) && x.type === 'text' && typeof x.text === 'string') {
      if (x.text.length > 0) out.push({ type: 'text', text: x.text });
    } else if (isObject(x) && x.type === 'image' && isObject(x.source)) {
      out.push({ type: 'image', source: x.source } as Block);
    } else out.push(...text(asText(x)));
  }
  return out.length > 0 ? out : '';
};

/** One Anthropic content block as Arbor's; what Arbor has no block for becomes text or provider. */
const block = (role: Role, b: unknown, model: string | undefined): Block[] => {
  if (!isObject(b)) return text(asText(b));
  switch (b.type) {
    case 'text':
      return typeof b.text === 'string' ? text(b.text) : [];
    case 'image':
      return isObject(b.source) ? [{ type: 'image', source: b.source } as Block] : [];
    case 'tool_use':
      if (role === 'assistant' && typeof b.id === 'string' && TOOL_ID.test(b.id))
        return [
          {
            type: 'tool_use',
            id: b.id,
            name: String(b.name),
            input: isObject(b.input) ? b.input : { value: b.input ?? null },
          } as Block,
        ];
      break;
    case 'tool_result':
      if (role === 'user' && typeof b.tool_use_id === 'string' && TOOL_ID.test(b.tool_use_id))
        return [
          {
            type: 'tool_result',
            tool_use_id: b.tool_use_id,
            content: toolResultContent(b.content),
            ...(b.is_error === true ? { is_error: true } : {}),
          } as Block,
        ];
      break;
    case 'thinking':
      if (role === 'assistant' && typeof b.thinking === 'string' && typeof b.signature === 'string')
        return [{ type: 'thinking', thinking: b.thinking, signature: b.signature } as Block];
      break;
    case 'redacted_thinking':
      if (role === 'assistant' && typeof b.data === 'string' && b.data.length > 0)
        return [{ type: 'redacted_thinking', data: b.data } as Block];
      break;
  }
  if (role === 'assistant')
    return [
      { type: 'provider', provider: 'anthropic', ...(model ? { model } : {}), item: b } as Block,
    ];
  return text(asText(b));
};

/** The message an entry is, if it is one: a user or assistant record of the main chain. */
const messageOf = (e: Entry): Omit<Rendered, 'entries'> | null => {
  if ((e.type !== 'user' && e.type !== 'assistant') || e.isSidechain === true) return null;
  if (typeof e.uuid !== 'string') return null;
  const m = e.message;
  if (!isObject(m) || m.role !== e.type) return null;
  const role = e.type;
  const model =
    role === 'assistant' && typeof m.model === 'string' && MODEL.test(m.model)
      ? m.model
      : undefined;
  const content =
    typeof m.content === 'string'
      ? text(m.content)
      : Array.isArray(m.content)
        ? m.content.flatMap((b) => block(role, b, model))
        : [];
  return { role, content, ...(model ? { model } : {}), ...(ID.test(e.uuid) ? { id: e.uuid } : {}) };
};

const toolUses = (m: Rendered) =>
  m.content.filter((b): b is Extract<Block, { type: 'tool_use' }> => b.type === 'tool_use');

const asTextBlock = (b: Block): Block => {
  if (b.type === 'tool_use')
    return { type: 'text', text: `[tool_use ${b.name} ${b.id}] ${JSON.stringify(b.input)}` };
  if (b.type === 'tool_result')
    return {
      type: 'text',
      text: `[tool_result ${b.tool_use_id}] ${resultText(b as unknown as Record<string, unknown>)}`,
    };
  return b;
};

/** Tool results first in a user message (a turn rule); the rest keeps its order. */
const resultsFirst = (content: Block[]): Block[] => [
  ...content.filter((b) => b.type === 'tool_result'),
  ...content.filter((b) => b.type !== 'tool_result'),
];

/**
 * The entries as alternating messages under the turn rules: consecutive records of one role
 * (one API message split over lines) are one message; a tool call the next message does not
 * answer, and a result that answers no call of the message before, are shown as text. A
 * message left without content, and assistant messages before the first user message, show as
 * none: their entries ride on the next message. `trailing`: the entries after the last message.
 */
export const render = (entries: readonly Entry[]): { messages: Rendered[]; trailing: Entry[] } => {
  const merged: Rendered[] = [];
  let waiting: Entry[] = [];
  for (const e of entries) {
    waiting.push(e);
    const m = messageOf(e);
    if (m === null) continue;
    const last = merged[merged.length - 1];
    if (last !== undefined && last.role === m.role) {
      last.content.push(...m.content);
      if (last.model === undefined && m.model !== undefined) last.model = m.model;
      last.entries.push(...waiting);
    } else if (m.role === 'assistant' && merged.length === 0) {
      continue; // no user message yet to answer: the entries wait for one
    } else merged.push({ ...m, entries: waiting });
    waiting = [];
  }
  const seen = new Set<string>();
  for (let i = 0; i < merged.length; i++) {
    const m = merged[i];
    if (m.role === 'user') {
      const before = merged[i - 1];
      const calls = new Set(before ? toolUses(before).map((b) => b.id) : []);
      const answered = new Set<string>();
      m.content = resultsFirst(
        m.content.map((b) => {
          if (b.type !== 'tool_result') return b;
          if (!calls.has(b.tool_use_id) || answered.has(b.tool_use_id)) return asTextBlock(b);
          answered.add(b.tool_use_id);
          return b;
        }),
      );
      if (before)
        before.content = before.content.map((b) =>
          b.type === 'tool_use' && !answered.has(b.id) ? asTextBlock(b) : b,
        );
    } else {
      m.content = m.content.map((b) => {
        if (b.type !== 'tool_use') return b;
        if (seen.has(b.id)) return asTextBlock(b);
        seen.add(b.id);
        return b;
      });
    }
  }
  // Messages left empty (a record whose only block was dropped) pass their entries on.
  const out: Rendered[] = [];
  let carry: Entry[] = [];
  for (const m of merged) {
    if (m.content.length === 0) {
      carry.push(...m.entries);
      continue;
    }
    const last = out[out.length - 1];
    if (last !== undefined && last.role === m.role) {
      last.content.push(...m.content);
      if (m.role === 'user') last.content = resultsFirst(last.content);
      last.entries.push(...carry, ...m.entries);
    } else out.push({ ...m, entries: [...carry, ...m.entries] });
    carry = [];
  }
  return { messages: out, trailing: [...carry, ...waiting] };
};

export interface Plan {
  /** Whole turns, each ending on an assistant answer that a later user message follows. */
  turns: Rendered[][];
  /** The open turn: what follows the last whole turn. */
  open: Rendered[];
  /** Entries after the last message. */
  trailing: Entry[];
}

/** Cuts the rendering into whole turns and the open rest. */
export const plan = (entries: readonly Entry[]): Plan => {
  const { messages, trailing } = render(entries);
  const turns: Rendered[][] = [];
  let start = 0;
  for (let i = 0; i + 1 < messages.length; i++) {
    const m = messages[i];
    if (m.role === 'assistant' && toolUses(m).length === 0) {
      turns.push(messages.slice(start, i + 1));
      start = i + 1;
    }
  }
  return { turns, open: messages.slice(start), trailing };
};

/** Entries are JSON by the SDK's contract (it round-trips them through JSON.stringify). */
export const clientDataOf = (carried: Carried): NonNullable<MessageInput['clientData']> =>
  ({ claudeAgentSdk: carried }) as unknown as NonNullable<MessageInput['clientData']>;

/** A turn's messages as Arbor's input, each carrying its entries. */
export const toInput = (
  messages: readonly Rendered[],
  extra: (i: number) => Omit<Carried, 'entries'> = () => ({}),
): MessageInput[] =>
  messages.map((m, i) => ({
    ...(m.id !== undefined ? { id: m.id } : {}),
    role: m.role,
    content: m.content,
    ...(m.model !== undefined ? { model: m.model } : {}),
    clientData: clientDataOf({ ...extra(i), entries: m.entries }),
  }));

const plain = (blocks: readonly Block[]): string =>
  blocks
    .map((b) => {
      const t = asTextBlock(b);
      return t.type === 'text' ? t.text : `[${b.type}]`;
    })
    .join('\n');

/**
 * The fallback for a turn Arbor refuses as rendered (a block its validator does not take): the
 * same entries as one user and one assistant message of plain text.
 */
export const asPlainTurn = (messages: readonly Rendered[]): Rendered[] => {
  const side = (role: Role): Rendered => {
    const ms = messages.filter((m) => m.role === role);
    return {
      role,
      content: [{ type: 'text', text: plain(ms.flatMap((m) => m.content)) || `(${role})` }],
      entries: [],
    };
  };
  const user = side('user');
  const assistant = side('assistant');
  // Entries stay in order: all of them on the user message, none on the answer.
  user.entries = messages.flatMap((m) => m.entries);
  return [user, assistant];
};

/** The entries a message carries, from its `clientData` (none if another writer made it). */
export const carriedBy = (clientData: unknown): Carried | undefined => {
  if (!isObject(clientData)) return undefined;
  const c = clientData.claudeAgentSdk;
  if (!isObject(c) || !Array.isArray(c.entries)) return undefined;
  return c as unknown as Carried;
};
