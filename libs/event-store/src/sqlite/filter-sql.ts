import { type AllFilter } from '../types';

export interface FilterSql {
  where: string;
  params: string[];
  key: string;
}

const NO_FILTER: FilterSql = { where: '', params: [], key: '-' };

const placeholders = (n: number, each: string, join: string): string =>
  Array.from({ length: n }, () => each).join(join);

/** An empty list matches nothing, so a tenant filter cannot fall open; `instr(...) = 1` is case-sensitive. */
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
