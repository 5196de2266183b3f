/**
 * RFC 9457 problem details with a stable machine-readable `code`. Every error the API returns is
 * one of these codes; the catalogue below is the contract (documented in README and /docs).
 */
export const PROBLEM_CODES = {
  validation_failed: { status: 400, title: 'The request is not valid' },
  malformed_json: { status: 400, title: 'The request body is not valid JSON' },
  invalid_utf8: { status: 400, title: 'The request body is not valid UTF-8' },
  json_too_deep: { status: 400, title: 'The JSON nests deeper than the limit' },
  malformed_header: { status: 400, title: 'A request header is malformed' },
  unknown_snapshot_shape: { status: 400, title: 'No snapshot page shape has this id' },
  unauthorized: { status: 401, title: 'A valid API key is required' },
  forbidden: { status: 403, title: 'This key may not do that' },
  not_found: { status: 404, title: 'No such resource' },
  conversation_not_found: { status: 404, title: 'Conversation not found' },
  message_not_found: { status: 404, title: 'Message not found' },
  parent_not_found: { status: 404, title: 'Parent message not found' },
  checkpoint_not_found: { status: 404, title: 'Checkpoint not found' },
  nothing_to_retry: { status: 404, title: 'There is no failed turn to retry' },
  tenant_not_found: { status: 404, title: 'Tenant not found' },
  revision_not_found: { status: 404, title: 'The conversation has no event at that revision' },
  context_not_found: { status: 404, title: 'No context with this id was handed out' },
  stale_tip: { status: 409, title: 'The conversation tip is not the expected one' },
  checkpoint_dropped: { status: 409, title: 'The checkpoint was dropped' },
  checkpoint_exists: { status: 409, title: 'A checkpoint with this label exists' },
  turn_id_conflict: { status: 409, title: 'This turnId was used for a different turn' },
  conversation_exists: { status: 409, title: 'The conversation exists' },
  concurrency_conflict: { status: 409, title: 'A concurrent write won; retry' },
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
  idempotency_key_reused: {
    status: 422,
    title: 'This Idempotency-Key was used for a different request',
  },
  /** Embedded in a reproduction answer (`mismatch`), never thrown: the answer itself is 200. */
  context_mismatch: {
    status: 409,
    title: 'The reproduced context differs from the one handed out',
  },
  projection_lagging: { status: 503, title: 'The read model has not caught up yet; retry' },
  store_unavailable: { status: 503, title: 'The event store is unavailable' },
  too_many_connections: { status: 503, title: 'Too many open connections; retry later' },
  insufficient_storage: { status: 507, title: 'The event store is out of space' },
  internal_error: { status: 500, title: 'Internal error' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ProblemCode = keyof typeof PROBLEM_CODES;

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  code: ProblemCode;
  detail?: string;
  instance?: string;
  [extension: string]: unknown;
}

/** Thrown anywhere at the edge; the filter turns it into `application/problem+json`. */
export class Problem extends Error {
  readonly status: number;
  constructor(
    readonly code: ProblemCode,
    readonly detail?: string,
    readonly extensions: Record<string, unknown> = {},
  ) {
    super(detail ?? PROBLEM_CODES[code].title);
    this.status = PROBLEM_CODES[code].status;
  }

  body(instance?: string): ProblemBody {
    const { title, status } = PROBLEM_CODES[this.code];
    return {
      ...this.extensions,
      type: `https://arbor.dev/problems/${this.code.replace(/_/g, '-')}`,
      title,
      status,
      code: this.code,
      ...(this.detail !== undefined ? { detail: this.detail } : {}),
      ...(instance !== undefined ? { instance } : {}),
    };
  }
}

export const isProblemCode = (code: string): code is ProblemCode =>
  Object.prototype.hasOwnProperty.call(PROBLEM_CODES, code);
