import { type z } from 'zod';
import { type MessageInput, parseMessages } from '@arbor/domain';
import { type FieldError, messagesError, validationFailed } from './errors';

export type InputPart = 'body' | 'query' | 'params' | 'headers';

export const formatPath = (segments: readonly PropertyKey[], root = ''): string =>
  segments.reduce<string>(
    (acc, s) =>
      typeof s === 'number' ? `${acc}[${s}]` : acc === '' ? String(s) : `${acc}.${String(s)}`,
    root,
  );

const issuesError = (issues: readonly z.core.$ZodIssue[], root: InputPart) =>
  validationFailed(
    issues.map((issue): FieldError => ({
      path: formatPath(issue.path, root),
      code: issue.code,
      message: issue.message,
    })),
  );

/** Parses a request part or throws `validation_failed` listing every error path. */
export const parseOrThrow = <T extends z.ZodType>(
  schema: T,
  value: unknown,
  root: InputPart = 'body',
): z.infer<T> => {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw issuesError(result.error.issues, root);
};

/** Inside `messages` the domain parser speaks first (precise codes); the schema has the last word. */
export const parseTurnBody = <T extends z.ZodType<{ messages: unknown[] }>>(
  schema: T,
  body: unknown,
  maxImageBytes: number,
): Omit<z.infer<T>, 'messages'> & { messages: MessageInput[] } => {
  const result = schema.safeParse(body);
  if (!result.success) {
    const envelope = result.error.issues.filter(
      (i) => !(i.path[0] === 'messages' && i.path.length > 1),
    );
    if (envelope.length > 0) throw issuesError(envelope, 'body');
  }
  const parsed = parseMessages((body as { messages: unknown }).messages, { maxImageBytes });
  if (!parsed.ok) throw messagesError(parsed.errors);
  if (!result.success) throw issuesError(result.error.issues, 'body');
  return { ...result.data, messages: parsed.value };
};

export const parseBodyWithMessages = <T extends z.ZodType, K extends string>(
  schema: T,
  body: unknown,
  field: K,
  maxImageBytes: number,
): Omit<z.infer<T>, K> & { [P in K]?: MessageInput[] } => {
  const result = schema.safeParse(body);
  if (!result.success) {
    const envelope = result.error.issues.filter((i) => !(i.path[0] === field && i.path.length > 1));
    if (envelope.length > 0) throw issuesError(envelope, 'body');
  }
  const list =
    typeof body === 'object' && body !== null
      ? (body as Record<string, unknown>)[field]
      : undefined;
  let messages: MessageInput[] | undefined;
  if (list !== undefined) {
    const parsed = parseMessages(list, { maxImageBytes, path: field });
    if (!parsed.ok) throw messagesError(parsed.errors);
    messages = parsed.value;
  }
  if (!result.success) throw issuesError(result.error.issues, 'body');
  const data = result.data as Omit<z.infer<T>, K>;
  return (messages === undefined ? data : { ...data, [field]: messages }) as Omit<z.infer<T>, K> & {
    [P in K]?: MessageInput[];
  };
};
