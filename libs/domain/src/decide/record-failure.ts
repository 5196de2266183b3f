import {
  type Decision,
  type DecideDeps,
  type RecordFailureCommand,
  type ResultOf,
} from '../commands';
import { domainError, type DomainError } from '../errors';
import { event } from '../events';
import { type ConversationState, pendingRetry, type PendingRetry } from '../state';
import { badId, failWith, succeed } from './common';

/** Persist a failed turn so "nothing to retry" and "nothing loaded" stay different answers. */
export const decideRecordFailure = (
  cmd: RecordFailureCommand,
  state: ConversationState,
  deps: DecideDeps,
): Decision<ResultOf<'recordFailure'>> => {
  const bad = badId('failureId', cmd.failureId);
  if (bad !== null) return failWith(bad);
  const failureId = cmd.failureId ?? deps.newId();
  const failed = event('TurnFailed', {
    failureId,
    input: cmd.input ?? null,
    error: cmd.error ?? null,
  });
  return succeed([failed], { failureId, revision: state.revision + 1 });
};

export const queryRetry = (
  state: ConversationState,
): { ok: true; value: PendingRetry } | { ok: false; error: DomainError } => {
  if (state.status === 'none') {
    return { ok: false, error: domainError('conversation_not_found', 'no such conversation') };
  }
  const pending = pendingRetry(state);
  return pending === null
    ? {
        ok: false,
        error: domainError('nothing_to_retry', 'no failed turn is waiting for a retry'),
      }
    : { ok: true, value: pending };
};
