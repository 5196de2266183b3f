import { type Decision, type RecordContextCommand, type ResultOf } from '../commands';
import { event } from '../events';
import { type ConversationState } from '../state';
import { fail, succeed } from './common';

/** The new decisions, then the receipt, in one append; the receipt names exactly those it adds. */
export const decideRecordContext = (
  cmd: RecordContextCommand,
  state: ConversationState,
): Decision<ResultOf<'recordContext'>> => {
  const known = new Set(state.compactions.map((d) => d.id));
  const ids = cmd.decisions.map((d) => d.id);
  if (new Set(ids).size !== ids.length || ids.some((id) => known.has(id))) {
    return fail('invalid_command', 'compaction decision ids must be new and unique');
  }
  const named = cmd.assembled.newDecisionIds;
  if (named.length !== ids.length || named.some((id, i) => id !== ids[i])) {
    return fail('invalid_command', 'the receipt must name exactly the new decisions, in order');
  }
  const unknown = cmd.assembled.decisionIds.filter((id) => !known.has(id) && !ids.includes(id));
  if (unknown.length > 0) {
    return fail('invalid_command', 'the receipt names decisions that were never recorded', {
      unknown,
    });
  }
  const events = [
    ...cmd.decisions.map((decision) => event('CompactionApplied', { decision })),
    event('ContextAssembled', cmd.assembled),
  ];
  return succeed(events, {
    contextId: cmd.assembled.contextId,
    revision: state.revision + events.length,
  });
};
