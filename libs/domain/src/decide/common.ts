import { ID_PATTERN } from '../ids';
/** Small helpers shared by the command deciders. */
import { type Decision } from '../commands';
import { domainError, type DomainError, type DomainErrorCode } from '../errors';
import { type ConversationEvent } from '../events';
import { type ConversationState } from '../state';

export const fail = <R>(
  code: DomainErrorCode,
  message: string,
  details?: Record<string, unknown>,
): Decision<R> => ({ ok: false, error: domainError(code, message, details) });

export const failWith = <R>(error: DomainError): Decision<R> => ({ ok: false, error });

export const succeed = <R>(events: readonly ConversationEvent[], result: R): Decision<R> => ({
  ok: true,
  events,
  result,
});

/** `stale_tip` when an expected tip is given and is not the tip. */
export const staleTip = (
  state: ConversationState,
  expectedTip: string | null | undefined,
): DomainError | null =>
  expectedTip === undefined || expectedTip === state.tip
    ? null
    : domainError('stale_tip', 'the tip has moved since it was read', {
        expectedTip,
        tip: state.tip,
      });

export const badId = (field: string, value: unknown): DomainError | null =>
  value === undefined || (typeof value === 'string' && ID_PATTERN.test(value))
    ? null
    : domainError('invalid_command', `${field} must match ${ID_PATTERN.source}`, { field });
