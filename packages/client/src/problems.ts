/** The errors a call rejects with: a problem answered by Arbor, or no answer at all. */
import { type Problem, type ProblemCode } from './types';

/**
 * The fields a problem adds beside `type`, `title`, `status`, `code`, `detail`, `errors` and
 * `violations`, per code (the server's answers; the OpenAPI document leaves them open as JSON).
 */
export interface ProblemExtras {
  stale_tip: { expectedTip: string | null; tip: string | null };
  rate_limited: { retryAfterSeconds: number };
  turn_id_conflict: { turnId: string };
  revision_not_found: { lastRevision: number };
  cannot_fit: {
    estimatedTokens: number;
    targetTokens: number;
    budgetTokens: number;
    systemTokens: number;
    toolsTokens: number;
    protectedTailTokens: number;
  };
  answer_too_large: { maxBytes: number };
  invalid_utf8: { offset: number };
  checkpoint_not_found: { label: string };
  message_not_found: { messageId: string };
  not_a_turn_boundary: { messageId: string };
}

/** A problem narrowed to one code, with that code's extra fields typed. */
export type ProblemWith<C extends ProblemCode> = Problem & {
  code: C;
} & (C extends keyof ProblemExtras ? ProblemExtras[C] : unknown);

export const isProblemBody = (value: unknown): value is Problem =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as { code?: unknown }).code === 'string' &&
  typeof (value as { status?: unknown }).status === 'number';

/** Arbor answered an RFC 9457 problem. `problem.code` is stable; branch on it. */
export class ArborProblemError extends Error {
  readonly status: number;
  readonly code: ProblemCode;

  constructor(
    readonly problem: Problem,
    readonly method: string,
    readonly url: string,
  ) {
    super(
      `${method} ${url}: ${problem.status} ${problem.code}${problem.detail ? `: ${problem.detail}` : ''}`,
    );
    this.name = 'ArborProblemError';
    this.status = problem.status;
    this.code = problem.code;
  }

  /** Narrows to one code: `if (e.is('invalid_turn')) e.problem.violations`. */
  is<C extends ProblemCode>(code: C): this is ArborProblemError & { problem: ProblemWith<C> } {
    return this.code === code;
  }
}

/** The request never got an answer (after every retry it was allowed). */
export class ArborNetworkError extends Error {
  constructor(
    readonly method: string,
    readonly url: string,
    readonly attempts: number,
    override readonly cause: unknown,
  ) {
    super(`${method} ${url}: no answer after ${attempts} attempt(s): ${String(cause)}`);
    this.name = 'ArborNetworkError';
  }
}

/** `isProblem(e, 'stale_tip')`: the error is that problem. */
export const isProblem = <C extends ProblemCode>(
  error: unknown,
  code: C,
): error is ArborProblemError & { problem: ProblemWith<C> } =>
  error instanceof ArborProblemError && error.is(code);
