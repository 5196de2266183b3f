import { type LineNote } from './types';

export interface JsonLine {
  line: number;
  value: Record<string, unknown>;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Parses JSON Lines; blank lines are ignored, unparseable ones reported. */
export const readJsonLines = (text: string, skipped: LineNote[]): JsonLine[] => {
  const out: JsonLine[] = [];
  text.split('\n').forEach((raw, i) => {
    if (raw.trim() === '') return;
    try {
      const value: unknown = JSON.parse(raw);
      if (isObject(value)) out.push({ line: i + 1, value });
      else skipped.push({ line: i + 1, reason: 'line is not a JSON object' });
    } catch {
      skipped.push({ line: i + 1, reason: 'unparseable JSON' });
    }
  });
  return out;
};

export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

export const obj = (v: unknown): Record<string, unknown> | undefined =>
  isObject(v) ? v : undefined;
