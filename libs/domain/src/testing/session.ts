/** A mutable test session around the pure decider: decide, append, evolve. Tests only. */
import { type Command, type Decision, type DecideDeps, type ResultOf } from '../commands';
import { decide } from '../conversation';
import { type ConversationEvent } from '../events';
import { foldEvents } from '../evolve';
import { type Block, type Message, type MessageInput } from '../messages';
import { type ConversationState, initialState } from '../state';

export const counterDeps = (prefix = 'id'): DecideDeps => {
  let n = 0;
  return {
    newId: () => `${prefix}${++n}`,
    now: () => '2025-01-01T00:00:00.000Z',
  };
};

export interface Session {
  state: ConversationState;
  readonly log: ConversationEvent[];
  readonly deps: DecideDeps;
}

export const newSession = (deps: DecideDeps = counterDeps()): Session => ({
  state: initialState(),
  log: [],
  deps,
});

/** Decide, and on success append the events and evolve the state. */
export const exec = <C extends Command>(s: Session, command: C): Decision<ResultOf<C['type']>> => {
  const decision = decide(command, s.state, s.deps);
  if (decision.ok) {
    s.log.push(...decision.events);
    s.state = foldEvents(decision.events, s.state);
  }
  return decision;
};

/** Like exec, but the command must succeed. */
export const ok = <C extends Command>(s: Session, command: C): ResultOf<C['type']> => {
  const decision = exec(s, command);
  if (!decision.ok) throw new Error(`${command.type} failed: ${JSON.stringify(decision.error)}`);
  return decision.result;
};

/** Every committed message of a log, by id. */
export const messagesOf = (log: readonly ConversationEvent[]): Map<string, Message> => {
  const map = new Map<string, Message>();
  for (const e of log) if (e.type === 'MessageAppended') map.set(e.data.message.id, e.data.message);
  return map;
};

export const text = (t: string): Block => ({ type: 'text', text: t });
export const toolUse = (id: string): Block => ({ type: 'tool_use', id, name: 'tool', input: {} });
export const toolResult = (id: string): Block => ({
  type: 'tool_result',
  tool_use_id: id,
  content: 'ok',
});
export const user = (...content: Block[]): MessageInput => ({ role: 'user', content });
export const assistant = (...content: Block[]): MessageInput => ({ role: 'assistant', content });

/** A simple valid turn: prompt, answer. */
export const qa = (q: string, a: string): MessageInput[] => [user(text(q)), assistant(text(a))];

/** A turn with one tool round. */
export const toolTurn = (q: string, toolId: string): MessageInput[] => [
  user(text(q)),
  assistant(toolUse(toolId)),
  user(toolResult(toolId)),
  assistant(text(`done ${toolId}`)),
];
