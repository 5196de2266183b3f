import { Problem } from '../problem/problem';

/** Opaque page cursors: base64url of `{k: kind, v: value}`; a cursor of another list is refused. */
export const encodeCursor = (kind: string, value: number): string =>
  Buffer.from(JSON.stringify({ k: kind, v: value })).toString('base64url');

export const decodeCursor = (kind: string, cursor: string | undefined): number | null => {
  if (cursor === undefined) return null;
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as {
      k?: unknown;
      v?: unknown;
    };
    if (
      parsed.k === kind &&
      typeof parsed.v === 'number' &&
      Number.isSafeInteger(parsed.v) &&
      parsed.v >= 0
    ) {
      return parsed.v;
    }
  } catch {
    // fall through
  }
  throw new Problem('validation_failed', 'query.cursor: not a cursor of this list', {
    errors: [
      { path: 'query.cursor', code: 'invalid_cursor', message: 'not a cursor of this list' },
    ],
  });
};
