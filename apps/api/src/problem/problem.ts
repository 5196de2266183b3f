import { type AppErrorValue } from '@arbor/application';

/**
 * RFC 9457 problem details with a stable machine-readable `code`. The catalogue of codes is part
 * of the wire contract (@arbor/contract), which the OpenAPI document enumerates.
 */
import { isProblemCode, PROBLEM_CODES, type ProblemCode } from '@arbor/contract';

export { isProblemCode, PROBLEM_CODES, type ProblemCode };

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

/** An error reported inside a 200 answer (a reproduction's `mismatch`), as a problem body. */
export const problemBodyOf = ({ code, detail, ...extensions }: AppErrorValue): ProblemBody =>
  new Problem(code, detail, extensions).body();
