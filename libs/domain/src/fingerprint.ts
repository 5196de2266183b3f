/** Canonical JSON (sorted keys) and its sha256: equal content ⇔ equal fingerprint. */
import { createHash } from 'node:crypto';

const canonical = (value: unknown): string => {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(obj[k])}`).join(',')}}`;
};

export const canonicalJson = (value: unknown): string => canonical(value);

export const fingerprint = (value: unknown): string =>
  createHash('sha256').update(canonical(value)).digest('hex');
