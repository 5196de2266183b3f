/**
 * The conversation as a decider: `decide(command, state, deps)` → events (or an error value),
 * `evolve(state, event)` → state, from `initialState()`. decide is pure given `deps`.
 */
import {
  type Command,
  type CommandType,
  type Decision,
  type DecideDeps,
  type ResultOf,
} from './commands';
import { decideSetCheckpoint, decideRewind } from './decide/checkpoints';
import { decideCommitTurn } from './decide/commit-turn';
import { fail } from './decide/common';
import { decideCommitDraft, decideDiscardDraft, decideSaveDraft } from './decide/draft';
import { decideFork } from './decide/fork';
import { decideMoveTip } from './decide/move-tip';
import { decideRecordContext } from './decide/record-context';
import { decideRecordFailure } from './decide/record-failure';
import { decideResume } from './decide/resume';
import { decideRevokeCompaction } from './decide/revoke-compaction';
import { decideErase } from './decide/erase';
import { decideStart } from './decide/start';
import { type ConversationState } from './state';

type Handler<K extends CommandType> = (
  command: Extract<Command, { type: K }>,
  state: ConversationState,
  deps: DecideDeps,
) => Decision<ResultOf<K>>;

const HANDLERS: { [K in CommandType]: Handler<K> } = {
  start: decideStart,
  commitTurn: decideCommitTurn,
  moveTip: decideMoveTip,
  fork: decideFork,
  setCheckpoint: decideSetCheckpoint,
  rewind: decideRewind,
  resume: decideResume,
  recordFailure: decideRecordFailure,
  recordContext: decideRecordContext,
  revokeCompaction: decideRevokeCompaction,
  saveDraft: decideSaveDraft,
  discardDraft: decideDiscardDraft,
  commitDraft: decideCommitDraft,
  erase: decideErase,
};

export const decide = <C extends Command>(
  command: C,
  state: ConversationState,
  deps: DecideDeps,
): Decision<ResultOf<C['type']>> => {
  if (command.type !== 'start' && state.status === 'none') {
    return fail('conversation_not_found', 'no such conversation');
  }
  if (state.status === 'erased') return fail('conversation_erased', 'this conversation was erased');
  const handler = HANDLERS[command.type] as unknown as (
    command: C,
    state: ConversationState,
    deps: DecideDeps,
  ) => Decision<ResultOf<C['type']>>;
  return handler(command, state, deps);
};
