import { type Decision, type ResultOf, type RevokeCompactionCommand } from '../commands';
import { event } from '../events';
import { type ConversationState } from '../state';
import { fail, succeed } from './common';

/** The decision stays in the log (contexts handed out with it still reproduce). */
export const decideRevokeCompaction = (
  cmd: RevokeCompactionCommand,
  state: ConversationState,
): Decision<ResultOf<'revokeCompaction'>> => {
  if (state.status === 'none') return fail('conversation_not_found', 'no such conversation');
  if (!state.compactions.some((d) => d.id === cmd.decisionId)) {
    return fail('compaction_not_found', `no compaction decision ${cmd.decisionId}`);
  }
  if (state.revokedCompactions.includes(cmd.decisionId)) {
    return succeed([], { decisionId: cmd.decisionId, revision: state.revision, replayed: true });
  }
  return succeed(
    [event('CompactionRevoked', { decisionId: cmd.decisionId, reason: cmd.reason ?? null })],
    {
      decisionId: cmd.decisionId,
      revision: state.revision + 1,
      replayed: false,
    },
  );
};
