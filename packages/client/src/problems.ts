/** The errors a call rejects with: a problem answered by Arbor, or no answer at all. */
import { type Problem, type ProblemCode } from './types';

export type ProblemWith<C extends ProblemCode> = Problem & { code: C };

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
