import { type Decision, type ResultOf, type ResumeCommand } from '../commands';
import { type ConversationEvent, event } from '../events';
import { type ConversationState, getNode, listCheckpoints } from '../state';
import { activeBranch } from '../tree';
import { checkpointsDroppedBy, computeResumeCut, type CutNode } from '../resume-cut';
import { fail, succeed } from './common';

const positiveInt = (v: number | undefined): boolean =>
  v === undefined || (Number.isSafeInteger(v) && v > 0);

export const activeCutNodes = (state: ConversationState): CutNode[] =>
  activeBranch(state).flatMap((id) => {
    const node = getNode(state, id);
    return node === undefined ? [] : [{ id, ...node }];
  });

/** Checkpoints outside the kept window are dropped first, then RunResumed records the cut. */
export const decideResume = (
  cmd: ResumeCommand,
  state: ConversationState,
): Decision<ResultOf<'resume'>> => {
  const { keepMessages, keepTokens } = cmd;
  if (keepMessages === undefined && keepTokens === undefined) {
    return fail('invalid_resume', 'give keepMessages and/or keepTokens');
  }
  if (!positiveInt(keepMessages) || !positiveInt(keepTokens)) {
    return fail('invalid_resume', 'keepMessages and keepTokens must be positive integers', {
      keepMessages,
      keepTokens,
    });
  }
  const cut = computeResumeCut(activeCutNodes(state), { keepMessages, keepTokens });
  if (cut === null || state.tip === null) {
    return fail('invalid_resume', 'the conversation has no messages to resume from');
  }
  const dropped = checkpointsDroppedBy(listCheckpoints(state), new Set(cut.keptIds));
  const droppedCheckpoints = dropped.map((c) => c.label);
  const current = state.resume;
  if (
    dropped.length === 0 &&
    current !== null &&
    current.cutAt === cut.cutAt &&
    current.tip === state.tip
  ) {
    // The live window is already cut exactly here: a second RunResumed would record nothing new.
    return succeed([], {
      cutAt: cut.cutAt,
      droppedCheckpoints: [],
      keptCount: cut.keptIds.length,
      keptTokens: cut.keptTokens,
      keptWholeLastTurn: cut.keptWholeLastTurn,
      revision: state.revision,
    });
  }
  const events: ConversationEvent[] = [
    ...dropped.map((c) =>
      event('CheckpointDropped', {
        label: c.label,
        messageId: c.messageId,
        reason: 'trimmed_by_resume',
      }),
    ),
    event('RunResumed', {
      cutAt: cut.cutAt,
      tip: state.tip,
      keepMessages: keepMessages ?? null,
      keepTokens: keepTokens ?? null,
      keptCount: cut.keptIds.length,
      keptTokens: cut.keptTokens,
      keptWholeLastTurn: cut.keptWholeLastTurn,
      droppedCheckpoints,
    }),
  ];
  return succeed(events, {
    cutAt: cut.cutAt,
    droppedCheckpoints,
    keptCount: cut.keptIds.length,
    keptTokens: cut.keptTokens,
    keptWholeLastTurn: cut.keptWholeLastTurn,
    revision: state.revision + events.length,
  });
};
