/** The rules that keep every path through the tree a transcript providers accept (README.md). */
import { type Violation } from './errors';
import { type Block, type MessageInput } from './messages';

export type TurnViolationCode =
  | 'empty_turn'
  | 'empty_message'
  | 'role_order'
  | 'must_end_with_assistant'
  | 'multiple_turns'
  | 'unanswered_tool_use'
  | 'orphan_tool_result'
  | 'tool_result_after_content'
  | 'duplicate_tool_result'
  | 'duplicate_tool_use_id'
  | 'duplicate_message_id'
  | 'root_exists';

export type TurnViolation = Violation<TurnViolationCode>;

export interface TurnContext {
  atRoot: boolean;
  /** The parent is a user message carrying tool results: this turn opens with the assistant. */
  continues?: boolean;
  idExists?: (id: string) => boolean;
  path?: string;
}

export const toolUseIdsOf = (content: readonly Block[]): string[] =>
  content.flatMap((b) => (b.type === 'tool_use' ? [b.id] : []));

export const toolResultIdsOf = (content: readonly Block[]): string[] =>
  content.flatMap((b) => (b.type === 'tool_result' ? [b.tool_use_id] : []));

type Out = TurnViolation[];

const at = (prefix: string, i: number, rest = ''): string => `${prefix}[${i}]${rest}`;

const checkEmpty = (messages: readonly MessageInput[], p: string, out: Out): void => {
  messages.forEach((m, i) => {
    if (m.content.length === 0) {
      out.push({
        path: at(p, i, '.content'),
        code: 'empty_message',
        message: 'a message must have content',
      });
    }
  });
};

interface Opening {
  atRoot: boolean;
  continues: boolean;
}

const expectedRole = (prev: MessageInput | undefined, o: Opening): string => {
  if (prev === undefined) {
    if (o.continues) return 'assistant (the parent ends on tool results)';
    return o.atRoot ? 'user (or system at the root)' : 'user';
  }
  return prev.role === 'user' ? 'assistant' : 'user';
};

const roleFits = (m: MessageInput, prev: MessageInput | undefined, o: Opening): boolean => {
  if (prev === undefined) {
    if (o.continues) return m.role === 'assistant';
    return m.role === 'user' || (m.role === 'system' && o.atRoot);
  }
  if (m.role === 'system') return false;
  return prev.role === 'user' ? m.role === 'assistant' : m.role === 'user';
};

export const endsTurn = (last: MessageInput, before: MessageInput | undefined): boolean =>
  last.role === 'assistant' ||
  (last.role === 'user' &&
    toolResultIdsOf(last.content).length > 0 &&
    before?.role === 'assistant' &&
    toolUseIdsOf(before.content).length > 0);

const checkRoles = (messages: readonly MessageInput[], o: Opening, p: string, out: Out): void => {
  messages.forEach((m, i) => {
    const prev = i === 0 ? undefined : messages[i - 1];
    if (!roleFits(m, prev, o)) {
      const where = m.role === 'system' ? '; a system message may only open the conversation' : '';
      out.push({
        path: at(p, i, '.role'),
        code: 'role_order',
        message: `expected ${expectedRole(prev, o)}, got ${m.role}${where}`,
      });
    }
  });
  const last = messages.length - 1;
  if (last >= 0 && !endsTurn(messages[last], messages[last - 1])) {
    out.push({
      path: at(p, last),
      code: 'must_end_with_assistant',
      message:
        'a turn ends with the assistant message that answers it, or with the tool results that answer its tool calls',
    });
  }
};

const checkFinalAnswers = (messages: readonly MessageInput[], p: string, out: Out): void => {
  messages.forEach((m, i) => {
    if (i < messages.length - 1 && m.role === 'assistant' && toolUseIdsOf(m.content).length === 0) {
      out.push({
        path: at(p, i),
        code: 'multiple_turns',
        message:
          'an assistant message without tool_use ends its turn; commit what follows as a new turn',
      });
    }
  });
};

const checkToolUses = (messages: readonly MessageInput[], p: string, out: Out): void => {
  const seen = new Set<string>();
  messages.forEach((m, i) => {
    const next = messages[i + 1];
    const answers = new Set(next === undefined ? [] : toolResultIdsOf(next.content));
    m.content.forEach((b, j) => {
      if (b.type !== 'tool_use') return;
      const path = at(p, i, `.content[${j}]`);
      if (seen.has(b.id)) {
        out.push({
          path,
          code: 'duplicate_tool_use_id',
          message: `tool_use id "${b.id}" is used twice`,
        });
      }
      seen.add(b.id);
      if (!answers.has(b.id)) {
        out.push({
          path,
          code: 'unanswered_tool_use',
          message: `tool_use "${b.id}" is not answered by a tool_result in the next message`,
        });
      }
    });
  });
};

const checkToolResults = (messages: readonly MessageInput[], p: string, out: Out): void => {
  messages.forEach((m, i) => {
    const calls = new Set(i === 0 ? [] : toolUseIdsOf(messages[i - 1].content));
    const answered = new Set<string>();
    let otherSeen = false;
    m.content.forEach((b, j) => {
      if (b.type !== 'tool_result') {
        otherSeen = true;
        return;
      }
      const path = at(p, i, `.content[${j}]`);
      if (!calls.has(b.tool_use_id)) {
        out.push({
          path,
          code: 'orphan_tool_result',
          message: `tool_result for "${b.tool_use_id}" answers no tool_use of the previous message`,
        });
      }
      if (answered.has(b.tool_use_id)) {
        out.push({
          path,
          code: 'duplicate_tool_result',
          message: `"${b.tool_use_id}" is answered twice`,
        });
      }
      answered.add(b.tool_use_id);
      if (otherSeen) {
        out.push({
          path,
          code: 'tool_result_after_content',
          message: 'tool_result blocks must come before any other block of the message',
        });
      }
    });
  });
};

const checkIds = (
  messages: readonly MessageInput[],
  ctx: TurnContext,
  p: string,
  out: Out,
): void => {
  const seen = new Set<string>();
  messages.forEach((m, i) => {
    if (m.id === undefined) return;
    if (seen.has(m.id) || (ctx.idExists?.(m.id) ?? false)) {
      out.push({
        path: at(p, i, '.id'),
        code: 'duplicate_message_id',
        message: `message id "${m.id}" is taken`,
      });
    }
    seen.add(m.id);
  });
};

/** Every violation of the turn rules; an empty array means the turn may be committed. */
export const checkTurn = (messages: readonly MessageInput[], ctx: TurnContext): TurnViolation[] => {
  const p = ctx.path ?? 'messages';
  if (messages.length === 0) {
    return [
      {
        path: p,
        code: 'empty_turn',
        message: 'a turn needs at least one message',
      },
    ];
  }
  const out: Out = [];
  checkEmpty(messages, p, out);
  checkRoles(messages, { atRoot: ctx.atRoot, continues: ctx.continues ?? false }, p, out);
  checkFinalAnswers(messages, p, out);
  checkToolUses(messages, p, out);
  checkToolResults(messages, p, out);
  checkIds(messages, ctx, p, out);
  return out;
};
