import { type Decision, type DecideDeps, type EraseCommand, type ResultOf } from '../commands';
import { event } from '../events';
import { type ConversationState } from '../state';
import { succeed } from './common';

/** Erasure as a command: one `ConversationErased`, after which every command is refused. */
export const decideErase = (
  cmd: EraseCommand,
  state: ConversationState,
  deps: DecideDeps,
): Decision<ResultOf<'erase'>> => {
  const conversationId = state.conversationId as string;
  const erasedAt = cmd.erasedAt ?? deps.now();
  const erased = event('ConversationErased', { conversationId, reason: cmd.reason, erasedAt });
  return succeed([erased], {
    conversationId,
    erasedAt,
    reason: cmd.reason,
    revision: state.revision + 1,
  });
};
