import { type AllFilter } from '../types';

/** A filter as SQL: a condition with `?` placeholders, the values to bind, and a cache key. */
export interface FilterSql {
  /** `''` when there is no filter, else ` AND (...)` to append to a WHERE clause. */
  where: string;
  params: string[];
  /** Statements are cached per shape: same key, same SQL text. */
  key: string;
}

const NO_FILTER: FilterSql = { where: '', params: [], key: '-' };

const placeholders = (n: number, each: string, join: string): string =>
  Array.from({ length: n }, () => each).join(join);

/**
 * Within a kind the parts are OR-ed (any prefix, any type), between kinds AND-ed. An empty list
 * matches nothing: a tenant-scoped filter built from no prefixes must not fall open.
 * `instr(stream, ?) = 1` is an exact, case-sensitive "starts with" (LIKE is neither).
 */
export const filterSql = (filter: AllFilter | undefined): FilterSql => {
  if (filter === undefined) return NO_FILTER;
  const parts: string[] = [];
  const params: string[] = [];
  const keys: string[] = [];
  const { streamPrefixes, eventTypes } = filter;
  if (streamPrefixes !== undefined) {
    parts.push(
      streamPrefixes.length === 0
        ? '0'
        : `(${placeholders(streamPrefixes.length, 'instr(stream, ?) = 1', ' OR ')})`,
    );
    params.push(...streamPrefixes);
    keys.push(`p${streamPrefixes.length}`);
  }
  if (eventTypes !== undefined) {
    parts.push(
      eventTypes.length === 0 ? '0' : `type IN (${placeholders(eventTypes.length, '?', ', ')})`,
    );
    params.push(...eventTypes);
    keys.push(`t${eventTypes.length}`);
  }
  if (parts.length === 0) return NO_FILTER;
  return { where: ` AND ${parts.join(' AND ')}`, params, key: keys.join('') };
};
