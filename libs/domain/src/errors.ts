/** Errors are values, never thrown: `{code, message, details?}` with a stable machine code. */

export type DomainErrorCode =
  | 'conversation_not_found'
  | 'conversation_exists'
  | 'conversation_erased'
  | 'stale_tip'
  | 'invalid_turn'
  | 'parent_not_found'
  | 'message_not_found'
  | 'not_a_turn_boundary'
  | 'checkpoint_not_found'
  | 'checkpoint_dropped'
  | 'checkpoint_exists'
  | 'turn_id_conflict'
  | 'nothing_to_retry'
  | 'invalid_resume'
  | 'compaction_not_found'
  | 'draft_not_found'
  | 'nothing_to_summarize'
  | 'invalid_command';

export interface DomainError {
  readonly code: DomainErrorCode;
  readonly message: string;
  readonly details?: Readonly<Record<string, unknown>>;
}

export interface Violation<Code extends string = string> {
  readonly path: string;
  readonly code: Code;
  readonly message: string;
}

export const domainError = (
  code: DomainErrorCode,
  message: string,
  details?: Record<string, unknown>,
): DomainError => (details === undefined ? { code, message } : { code, message, details });

export const isDomainError = (value: unknown): value is DomainError =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as { code?: unknown }).code === 'string' &&
  typeof (value as { message?: unknown }).message === 'string';
