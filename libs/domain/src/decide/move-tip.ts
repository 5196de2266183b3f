import { abandonedPath } from '../branch-summary';
import { type Decision, type MoveTipCommand, type ResultOf } from '../commands';
import { event } from '../events';
import { type ConversationState, hasMessage } from '../state';
import { fail, failWith, staleTip, succeed } from './common';

/** Exactly one TipMoved; a move to where the tip already is appends nothing. */
export const decideMoveTip = (
  cmd: MoveTipCommand,
  state: ConversationState,
): Decision<ResultOf<'moveTip'>> => {
  const stale = staleTip(state, cmd.expectedTip);
  if (stale !== null) return failWith(stale);
  if (cmd.messageId !== null && !hasMessage(state, cmd.messageId)) {
    return fail('message_not_found', 'no such message in this conversation', {
      messageId: cmd.messageId,
    });
  }
  if (state.tip === cmd.messageId) {
    return succeed([], { tip: state.tip, revision: state.revision });
  }
  const moved = event('TipMoved', { from: state.tip, to: cmd.messageId, reason: 'branch' });
  const summary = cmd.branchSummary;
  if (summary === undefined) {
    return succeed([moved], { tip: cmd.messageId, revision: state.revision + 1 });
  }
  // Made from the tip the application read: it must still be the path this move leaves.
  const path =
    state.tip === null || cmd.messageId === null
      ? null
      : abandonedPath(state, state.tip, cmd.messageId);
  if (
    path === null ||
    !path.ok ||
    summary.fromTip !== state.tip ||
    summary.toTip !== cmd.messageId ||
    summary.ancestorId !== path.ancestorId ||
    summary.ontoId !== path.ontoId ||
    JSON.stringify(summary.abandonedIds) !== JSON.stringify(path.abandonedIds)
  ) {
    return fail('stale_tip', 'the tip has moved since the branch summary was made', {
      expectedTip: summary.fromTip,
      tip: state.tip,
    });
  }
  return succeed([moved, event('BranchSummarized', summary)], {
    tip: cmd.messageId,
    revision: state.revision + 2,
  });
};
