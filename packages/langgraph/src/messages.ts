/**
 * LangChain messages ↔ Arbor messages. Each LangChain message keeps its serialized form in the
 * Arbor message's `clientData.langgraph` (a list: consecutive tool messages make one user
 * message of `tool_result` blocks), so a read gives back exactly what was written; the blocks
 * are what a model and the console see.
 */
import { type BaseMessage, isBaseMessage } from '@langchain/core/messages';
import { type Block, type JsonValue, type MessageInput } from '@arbor/client';

/** A message as the checkpointer handles it: the object and its serde JSON. */
export interface Serialized {
  message: BaseMessage;
  json: JsonValue;
}

const TOOL_ID = /^[A-Za-z0-9_.:|@/+=-]{1,256}$/;

const textOf = (content: unknown): string | null => {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return null;
  const parts: string[] = [];
  for (const part of content as unknown[]) {
    if (typeof part === 'string') parts.push(part);
    else if (part && typeof part === 'object' && (part as { type?: unknown }).type === 'text') {
      const text = (part as { text?: unknown }).text;
      if (typeof text !== 'string') return null;
      parts.push(text);
    } else return null; // images, files: kept as pending state, not as a turn
  }
  return parts.join('');
};

const typeOf = (m: BaseMessage): string => m.getType();

/** One Arbor message for a run of LangChain messages, or null when Arbor has no shape for it. */
const one = (run: Serialized[], atRoot: boolean): MessageInput | null => {
  const first = run[0].message;
  const clientData = { langgraph: run.map((s) => s.json) } as MessageInput['clientData'];
  switch (typeOf(first)) {
    case 'system': {
      const text = textOf(first.content);
      return atRoot && text
        ? { role: 'system', content: [{ type: 'text', text }], clientData }
        : null;
    }
    case 'human': {
      const text = textOf(first.content);
      return text ? { role: 'user', content: [{ type: 'text', text }], clientData } : null;
    }
    case 'ai': {
      const text = textOf(first.content);
      if (text === null) return null;
      const content: Block[] = text ? [{ type: 'text', text }] : [];
      const calls = (first as { tool_calls?: { id?: string; name: string; args: unknown }[] })
        .tool_calls;
      for (const call of calls ?? []) {
        if (!call.id || !TOOL_ID.test(call.id)) return null;
        if (!call.args || typeof call.args !== 'object' || Array.isArray(call.args)) return null;
        content.push({
          type: 'tool_use',
          id: call.id,
          name: call.name,
          input: call.args as Record<string, JsonValue>,
        });
      }
      return content.length > 0 ? { role: 'assistant', content, clientData } : null;
    }
    case 'tool': {
      const content: Block[] = [];
      for (const { message } of run) {
        const id = (message as { tool_call_id?: string }).tool_call_id;
        if (!id || !TOOL_ID.test(id)) return null;
        const text = textOf(message.content);
        content.push({
          type: 'tool_result',
          tool_use_id: id,
          content: text ?? JSON.stringify(message.content),
          ...(message.name ? { name: message.name } : {}),
          ...((message as { status?: string }).status === 'error' ? { is_error: true } : {}),
        });
      }
      return { role: 'user', content, clientData };
    }
    default:
      return null;
  }
};

/** What a committed turn ends on: an answer, or tool results (the next turn continues). */
export type TurnEnd = 'answer' | 'tool_results';

/**
 * Splits `messages` (what follows a turn end of kind `after`, or the root) into whole Arbor
 * turns. Answers the turns and how many LangChain messages they cover; the rest (a question
 * not yet answered, calls not yet answered, anything Arbor has no shape for) is left over.
 */
export const toTurns = (
  messages: Serialized[],
  after: TurnEnd | null,
): { turns: { messages: MessageInput[]; covers: number; end: TurnEnd }[]; covered: number } => {
  const arbor: { message: MessageInput; count: number }[] = [];
  for (let i = 0; i < messages.length;) {
    let j = i + 1;
    if (typeOf(messages[i].message) === 'tool')
      while (j < messages.length && typeOf(messages[j].message) === 'tool') j++;
    const m = one(messages.slice(i, j), after === null && i === 0);
    if (!m) break;
    arbor.push({ message: m, count: j - i });
    i = j;
  }
  const turns: { messages: MessageInput[]; covers: number; end: TurnEnd }[] = [];
  let start = 0;
  let covered = 0;
  let pendingCalls = new Set<string>();
  for (let k = 0; k < arbor.length; k++) {
    const { message } = arbor[k];
    let end: TurnEnd | null = null;
    if (message.role === 'assistant') {
      pendingCalls = new Set(message.content.flatMap((b) => (b.type === 'tool_use' ? [b.id] : [])));
      if (pendingCalls.size === 0) end = 'answer';
    } else if (message.role === 'user' && message.content.some((b) => b.type === 'tool_result')) {
      const answered = new Set(
        message.content.flatMap((b) => (b.type === 'tool_result' ? [b.tool_use_id] : [])),
      );
      if (pendingCalls.size > 0 && [...pendingCalls].every((id) => answered.has(id)))
        end = 'tool_results';
      pendingCalls = new Set();
    }
    if (end) {
      const slice = arbor.slice(start, k + 1);
      const covers = slice.reduce((n, a) => n + a.count, 0);
      turns.push({ messages: slice.map((a) => a.message), covers, end });
      covered += covers;
      start = k + 1;
    }
  }
  return { turns, covered };
};

export const isMessageList = (value: unknown): value is BaseMessage[] =>
  Array.isArray(value) && value.length > 0 && value.every((m) => isBaseMessage(m));
