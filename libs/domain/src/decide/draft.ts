import {
  type CommitDraftCommand,
  type Decision,
  type DecideDeps,
  type DiscardDraftCommand,
  type ResultOf,
  type SaveDraftCommand,
} from '../commands';
import { event } from '../events';
import { fingerprint } from '../fingerprint';
import { pmapGet } from '../persistent-map';
import { type ConversationState, getTurn } from '../state';
import { badId, fail, failWith, succeed } from './common';
import { decideCommitTurn, turnContentHash, turnError } from './commit-turn';

export const decideSaveDraft = (
  cmd: SaveDraftCommand,
  state: ConversationState,
  deps: DecideDeps,
): Decision<ResultOf<'saveDraft'>> => {
  const bad = badId('draftId', cmd.draftId);
  if (bad !== null) return failWith(bad);
  const invalid = turnError(state, cmd.parentId, cmd.messages, true);
  if (invalid !== null) return failWith(invalid);
  const current = state.draft;
  if (
    current !== null &&
    (cmd.draftId === undefined || cmd.draftId === current.draftId) &&
    fingerprint({ p: current.parentId, m: current.messages }) ===
      fingerprint({ p: cmd.parentId, m: cmd.messages })
  ) {
    return succeed([], { draftId: current.draftId, revision: state.revision, replayed: true });
  }
  const draftId = cmd.draftId ?? deps.newId();
  const saved = event('DraftSaved', { draftId, parentId: cmd.parentId, messages: cmd.messages });
  return succeed([saved], { draftId, revision: state.revision + 1, replayed: false });
};

export const decideDiscardDraft = (
  _cmd: DiscardDraftCommand,
  state: ConversationState,
): Decision<ResultOf<'discardDraft'>> => {
  if (state.draft === null) return succeed([], { revision: state.revision, discarded: false });
  const gone = event('DraftDiscarded', { draftId: state.draft.draftId, reason: 'discarded' });
  return succeed([gone], { revision: state.revision + 1, discarded: true });
};

/** Draft + `messages` as one turn, DraftDiscarded in the same append: a crash leaves one. */
export const decideCommitDraft = (
  cmd: CommitDraftCommand,
  state: ConversationState,
  deps: DecideDeps,
): Decision<ResultOf<'commitDraft'>> => {
  const draft = state.draft;
  const restHash = fingerprint(cmd.messages);
  if (draft === null) {
    const done = cmd.turnId === undefined ? undefined : getTurn(state, cmd.turnId);
    if (cmd.turnId === undefined || done === undefined) {
      return fail('draft_not_found', 'this conversation has no draft to commit');
    }
    // A retry answers what the commit answered; other messages under its turnId are a conflict.
    const fromDraft = pmapGet(state.draftCommits, cmd.turnId);
    const same =
      fromDraft !== undefined
        ? fromDraft.restHash === restHash
        : done.contentHash === turnContentHash(done.parentId, cmd.messages);
    if (!same) {
      return fail('turn_id_conflict', 'this turnId was already committed with other content', {
        turnId: cmd.turnId,
      });
    }
    const { messageIds, tip } = done;
    const revision = fromDraft?.revision ?? done.revision;
    return succeed([], { turnId: cmd.turnId, messageIds, tip, revision, replayed: true });
  }
  const decided = decideCommitTurn(
    {
      type: 'commitTurn',
      parentId: draft.parentId,
      messages: [...draft.messages, ...cmd.messages],
      ...(cmd.turnId !== undefined ? { turnId: cmd.turnId } : {}),
      ...(cmd.expectedTip !== undefined ? { expectedTip: cmd.expectedTip } : {}),
    },
    state,
    deps,
  );
  if (!decided.ok || decided.result.replayed) return decided;
  const gone = event('DraftDiscarded', {
    draftId: draft.draftId,
    reason: 'committed',
    turnId: decided.result.turnId,
    restHash,
  });
  return succeed([...decided.events, gone], {
    ...decided.result,
    revision: decided.result.revision + 1,
  });
};
