import { type DomainError, type ValidationIssue } from '@arbor/domain';

/** Stable codes; each edge maps them (apps/api to statuses, apps/cli to exit codes). */
export const APP_ERROR_CODES = [
  'validation_failed',
  'payload_too_large',
  'unknown_snapshot_shape',
  'snapshot_pages_over_limit',
  'unsupported_image_source',
  'unauthorized',
  'not_found',
  'conversation_not_found',
  'conversation_erased',
  'message_not_found',
  'parent_not_found',
  'checkpoint_not_found',
  'nothing_to_retry',
  'tenant_not_found',
  'revision_not_found',
  'context_not_found',
  'compaction_not_found',
  'draft_not_found',
  'stale_tip',
  'checkpoint_dropped',
  'checkpoint_exists',
  'turn_id_conflict',
  'conversation_exists',
  'concurrency_conflict',
  'invalid_turn',
  'not_a_turn_boundary',
  'invalid_resume',
  'cannot_fit',
  'nothing_to_summarize',
  'summarizer_not_configured',
  'summarizer_failed',
  'context_mismatch',
  'projection_lagging',
  'read_models_unavailable',
  'too_many_streams',
  'heavy_work_busy',
  'rate_limited',
  'internal_error',
] as const;

export type AppErrorCode = (typeof APP_ERROR_CODES)[number];

export class AppError extends Error {
  override readonly name = 'AppError';
  constructor(
    readonly code: AppErrorCode,
    readonly detail?: string,
    readonly details: Readonly<Record<string, unknown>> = {},
  ) {
    super(detail ?? code);
  }
}

/** One detail wherever it is found out (the decider uses these words too), so routes answer alike. */
export const conversationNotFound = (): AppError =>
  new AppError('conversation_not_found', 'no such conversation');

export interface AppErrorValue {
  code: AppErrorCode;
  detail?: string;
  [detail: string]: unknown;
}

const isAppErrorCode = (code: string): code is AppErrorCode =>
  (APP_ERROR_CODES as readonly string[]).includes(code);

/** A domain error becomes the application error with the same stable code. */
export const fromDomainError = (error: DomainError): AppError => {
  const details = error.details ? { ...error.details } : {};
  if (error.code === 'invalid_command')
    return new AppError('validation_failed', error.message, details);
  if (isAppErrorCode(error.code)) return new AppError(error.code, error.message, details);
  return new AppError('internal_error');
};

export interface FieldError {
  path: string;
  code: string;
  message: string;
}

export const validationFailed = (errors: readonly FieldError[]): AppError =>
  new AppError('validation_failed', errors.map((e) => `${e.path}: ${e.message}`).join('; '), {
    errors,
  });

/** payload_too_large when an image is over the cap, else validation_failed. */
export const messagesError = (issues: readonly ValidationIssue[]): AppError => {
  const errors = issues.map((i) => ({ path: `body.${i.path}`, code: i.code, message: i.message }));
  const detail = errors.map((e) => `${e.path}: ${e.message}`).join('; ');
  return issues.some((i) => i.code === 'image_too_large')
    ? new AppError('payload_too_large', detail, { errors })
    : new AppError('validation_failed', detail, { errors });
};
