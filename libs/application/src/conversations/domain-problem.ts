import { type DomainError, type ValidationIssue } from '@arbor/domain';
import { isProblemCode, Problem } from '../../../../apps/api/src/problem/problem';

/** A domain error value becomes the problem with the same stable code. */
export const domainProblem = (error: DomainError): Problem => {
  const extensions = error.details ? { ...error.details } : {};
  if (error.code === 'invalid_command')
    return new Problem('validation_failed', error.message, extensions);
  if (isProblemCode(error.code)) return new Problem(error.code, error.message, extensions);
  return new Problem('internal_error');
};

/** Message validation issues: 413 when an image is over the cap, else 400 with every path. */
export const messagesProblem = (issues: readonly ValidationIssue[]): Problem => {
  const errors = issues.map((i) => ({ path: `body.${i.path}`, code: i.code, message: i.message }));
  const detail = errors.map((e) => `${e.path}: ${e.message}`).join('; ');
  return issues.some((i) => i.code === 'image_too_large')
    ? new Problem('payload_too_large', detail, { errors })
    : new Problem('validation_failed', detail, { errors });
};
