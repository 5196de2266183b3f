/** The active branch of an imported conversation, as the turns that lie on it. */
import { type MessageInput } from '@arbor/domain';
import { type ImportedConversation } from './types';

/**
 * The turns on the conversation's active branch (root → tip), each cut to the messages on that
 * branch (the last turn may end before its own end when the tip is inside it). What a reader of
 * "the session as it was last seen" wants, without committing it anywhere.
 */
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
