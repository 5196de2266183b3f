import { z } from 'zod';
import { CommitTurnBody } from '@arbor/contract';
import { parseMessages } from '@arbor/domain';
import { messagesProblem } from '../conversations/domain-problem';
import { Problem } from '../problem/problem';

export interface FieldError {
  path: string;
  code: string;
  message: string;
}

/** `a.b[2].c` from zod's path segments. */
export const formatPath = (segments: readonly PropertyKey[], root = ''): string =>
  segments.reduce<string>(
    (acc, s) =>
      typeof s === 'number' ? `${acc}[${s}]` : acc === '' ? String(s) : `${acc}.${String(s)}`,
    root,
  );

/** Parses a request part or throws a 400 `validation_failed` problem listing every error path. */
export const parseOrThrow = <T extends z.ZodType>(
  schema: T,
  value: unknown,
  root: 'body' | 'query' | 'params' = 'body',
): z.infer<T> => {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw validationProblem(result.error.issues, root);
};

const validationProblem = (
  issues: readonly z.core.$ZodIssue[],
  root: 'body' | 'query' | 'params',
): Problem => {
  const errors: FieldError[] = issues.map((issue) => ({
    path: formatPath(issue.path, root),
    code: issue.code,
    message: issue.message,
  }));
  return new Problem('validation_failed', errors.map((e) => `${e.path}: ${e.message}`).join('; '), {
    errors,
  });
};

/**
 * A turn body by the contract's `CommitTurnBody`. Inside `messages` the domain parser speaks
 * first: its errors are precise (`unknown_block_type`, `image_too_large` → 413, …) and it checks
 * what JSON Schema cannot (strict base64, the image's real type and size, blocks per role); the
 * schema still has the last word, so nothing the document refuses gets through.
 */
export const parseTurnBody = (body: unknown, maxImageBytes: number) => {
  const result = CommitTurnBody.safeParse(body);
  if (!result.success) {
    const envelope = result.error.issues.filter(
      (i) => !(i.path[0] === 'messages' && i.path.length > 1),
    );
    if (envelope.length > 0) throw validationProblem(envelope, 'body');
  }
  const parsed = parseMessages((body as { messages: unknown }).messages, { maxImageBytes });
  if (!parsed.ok) throw messagesProblem(parsed.errors);
  if (!result.success) throw validationProblem(result.error.issues, 'body');
  return { ...result.data, messages: parsed.value };
};
