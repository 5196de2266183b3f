/** RFC 9457 problem details with a stable `code`: this catalogue is the contract. */
import { z } from 'zod';
import { JsonValue } from './common';

export const PROBLEM_CODES = {
  validation_failed: { status: 400, title: 'The request is not valid' },
  malformed_json: { status: 400, title: 'The request body is not valid JSON' },
  invalid_utf8: { status: 400, title: 'The request body is not valid UTF-8' },
  json_too_deep: { status: 400, title: 'The JSON nests deeper than the limit' },
  malformed_header: { status: 400, title: 'A request header is malformed' },
  unknown_snapshot_shape: { status: 400, title: 'No snapshot page shape has this id' },
  snapshot_pages_over_limit: {
    status: 400,
    title: 'maxSnapshotPages is over the images the provider takes in one request for this model',
  },
  unsupported_image_source: {
    status: 400,
    title: 'The target provider cannot take an image source of the history (a URL or file id)',
  },
  unauthorized: { status: 401, title: 'A valid API key is required' },
  forbidden: { status: 403, title: 'This key may not do that' },
  not_found: { status: 404, title: 'No such resource' },
  conversation_not_found: { status: 404, title: 'Conversation not found' },
  conversation_erased: { status: 410, title: 'The conversation was erased' },
  message_not_found: { status: 404, title: 'Message not found' },
  parent_not_found: { status: 404, title: 'Parent message not found' },
  checkpoint_not_found: { status: 404, title: 'Checkpoint not found' },
  nothing_to_retry: { status: 404, title: 'There is no failed turn to retry' },
  tenant_not_found: { status: 404, title: 'Tenant not found' },
  revision_not_found: { status: 404, title: 'The conversation has no event at that revision' },
  context_not_found: { status: 404, title: 'No context with this id was handed out' },
  compaction_not_found: { status: 404, title: 'No compaction decision with this id' },
  draft_not_found: { status: 404, title: 'The conversation has no draft' },
  stale_tip: { status: 409, title: 'The conversation tip is not the expected one' },
  checkpoint_dropped: { status: 409, title: 'The checkpoint was dropped' },
  checkpoint_exists: { status: 409, title: 'A checkpoint with this label exists' },
  turn_id_conflict: { status: 409, title: 'This turnId was used for a different turn' },
  conversation_exists: { status: 409, title: 'The conversation exists' },
  idempotency_in_progress: {
    status: 409,
    title: 'A request with this Idempotency-Key is still being processed',
  },
  concurrency_conflict: { status: 409, title: 'A concurrent write won; retry' },
  secret_shown_once: {
    status: 409,
    title: 'The first answer to this Idempotency-Key held a secret, shown once and not kept',
  },
  request_timeout: { status: 408, title: 'The request did not arrive in time' },
  payload_too_large: { status: 413, title: 'The request is too large' },
  field_too_large: { status: 413, title: 'A JSON field is larger than the limit' },
  uri_too_long: { status: 414, title: 'A path segment is too long' },
  unsupported_media_type: { status: 415, title: 'Send application/json' },
  headers_too_large: { status: 431, title: 'The request headers are too large' },
  invalid_turn: { status: 422, title: 'The turn is not valid' },
  not_a_turn_boundary: { status: 422, title: 'The message is not at a turn boundary' },
  invalid_resume: { status: 422, title: 'The resume request cannot be satisfied' },
  cannot_fit: { status: 422, title: 'The context cannot fit the budget' },
  nothing_to_summarize: {
    status: 422,
    title: 'The tip move leaves no path behind to summarize',
  },
  summarizer_not_configured: {
    status: 422,
    title: 'No summarizer is configured (ARBOR_SUMMARY_*); the tip did not move',
  },
  summarizer_failed: { status: 502, title: 'The summarizer failed; the tip did not move' },
  answer_too_large: {
    status: 422,
    title: 'The answer would be larger than the answer limit; read it in pages',
  },
  idempotency_key_reused: {
    status: 422,
    title: 'This Idempotency-Key was used for a different request',
  },
  /** Embedded in a reproduction answer (`mismatch`), never thrown: the answer itself is 200. */
  context_mismatch: {
    status: 409,
    title: 'The reproduced context differs from the one handed out',
  },
  rate_limited: {
    status: 429,
    title: "The tenant's request rate is over its limit; retry after Retry-After",
  },
  too_many_streams: { status: 429, title: 'The tenant holds its maximum of open live streams' },
  heavy_work_busy: {
    status: 429,
    title: 'The tenant runs its maximum of heavy calls at once; retry after Retry-After',
  },
  projection_lagging: { status: 503, title: 'The read model has not caught up yet; retry' },
  read_models_unavailable: {
    status: 503,
    title:
      'The read models are unavailable (Redis unreachable, or being rebuilt from the log); retry',
  },
  store_unavailable: { status: 503, title: 'The event store is unavailable' },
  too_many_connections: { status: 503, title: 'Too many open connections; retry later' },
  insufficient_storage: { status: 507, title: 'The event store is out of space' },
  internal_error: { status: 500, title: 'Internal error' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ProblemCode = keyof typeof PROBLEM_CODES;

export const PROBLEM_CODE_LIST = Object.keys(PROBLEM_CODES) as [ProblemCode, ...ProblemCode[]];

export const isProblemCode = (code: string): code is ProblemCode =>
  Object.prototype.hasOwnProperty.call(PROBLEM_CODES, code);

/** One failing field of a `validation_failed` (or image `payload_too_large`) answer. */
export const FieldErrorSchema = z
  .object({
    path: z
      .string()
      .meta({ description: 'Where: `body.messages[2].content[0].text`, `query.limit`' }),
    code: z.string().meta({ description: 'What: e.g. `unknown_block_type`, `too_small`' }),
    message: z.string(),
  })
  .meta({ id: 'FieldError' });

/** The problem+json body for a set of codes. */
export const problemSchema = (codes: readonly ProblemCode[] = PROBLEM_CODE_LIST) =>
  z
    .object({
      type: z.string().meta({ description: 'https://arbor.dev/problems/<code with dashes>' }),
      title: z.string(),
      status: z.number().int(),
      code: z.enum(codes as [ProblemCode, ...ProblemCode[]]),
      detail: z.string().optional(),
      instance: z.string().optional().meta({ description: 'The request path' }),
      errors: z.array(FieldErrorSchema).optional(),
      violations: z
        .array(FieldErrorSchema)
        .optional()
        .meta({ description: '`invalid_turn`: every broken turn rule, with its path and code' }),
    })
    // Open beyond the named fields: per-code extensions (numbers, `lastRevision`, …) as JSON.
    .catchall(JsonValue);

export const ProblemSchema = problemSchema().meta({ id: 'Problem' });
export type ProblemBody = z.infer<typeof ProblemSchema>;
