import { z } from 'zod';
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
  const errors: FieldError[] = result.error.issues.map((issue) => ({
    path: formatPath(issue.path, root),
    code: issue.code,
    message: issue.message,
  }));
  throw new Problem('validation_failed', errors.map((e) => `${e.path}: ${e.message}`).join('; '), {
    errors,
  });
};

/** JSON Schema for OpenAPI from the same zod schema that validates the request. */
export const openApiSchema = (schema: z.ZodType): Record<string, unknown> => {
  const json = z.toJSONSchema(schema, { target: 'openapi-3.0', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  delete json.$schema;
  return json;
};
