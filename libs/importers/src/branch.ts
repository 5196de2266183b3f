import { type MessageInput } from '@arbor/domain';
import { type ImportedConversation } from './types';

/** Each turn cut to the active branch (the last may end early: the tip can be inside it). */
export const activeBranchTurns = (conversation: ImportedConversation): MessageInput[][] => {
  const turnOf = new Map<string, number>();
  conversation.turns.forEach((turn, t) => {
    for (const m of turn.messages) if (m.id !== undefined) turnOf.set(m.id, t);
  });
  const turns: MessageInput[][] = [];
  let last = -1;
  for (const id of conversation.activeBranch) {
    const t = turnOf.get(id);
    if (t === undefined) throw new Error(`active branch names ${id}, which no turn holds`);
    const message = conversation.turns[t].messages.find((m) => m.id === id) as MessageInput;
    if (t !== last) turns.push([]);
    turns[turns.length - 1].push(message);
    last = t;
  }
  return turns;
};
