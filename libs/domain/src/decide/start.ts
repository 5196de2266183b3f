import { type Decision, type DecideDeps, type ResultOf, type StartCommand } from '../commands';
import { event } from '../events';
import { type ConversationState } from '../state';
import { badId, fail, failWith, succeed } from './common';

export const decideStart = (
  cmd: StartCommand,
  state: ConversationState,
  deps: DecideDeps,
): Decision<ResultOf<'start'>> => {
  if (state.status !== 'none') {
    return fail('conversation_exists', 'the conversation already exists', {
      conversationId: state.conversationId,
    });
  }
  const bad = badId('conversationId', cmd.conversationId);
  if (bad !== null) return failWith(bad);
  const conversationId = cmd.conversationId ?? deps.newId();
  const started = event('ConversationStarted', {
    conversationId,
    title: cmd.title ?? null,
    metadata: cmd.metadata ?? {},
    forkedFrom: null,
  });
  return succeed([started], { conversationId, tip: null, revision: state.revision + 1 });
};
