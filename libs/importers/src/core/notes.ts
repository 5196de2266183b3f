import { type LineNote } from '../types';

/** Collects what an import left out (`skipped`) or kept in another shape (`changed`). */
export interface Notes {
  readonly skipped: LineNote[];
  readonly changed: LineNote[];
  skip(line: number, reason: string): void;
  change(line: number, reason: string): void;
}

export const createNotes = (): Notes => {
  const skipped: LineNote[] = [];
  const changed: LineNote[] = [];
  return {
    skipped,
    changed,
    skip: (line, reason) => void skipped.push({ line, reason }),
    change: (line, reason) => void changed.push({ line, reason }),
  };
};

/** Notes sorted by line, then reason: reports read top to bottom. */
export const sortNotes = (notes: readonly LineNote[]): LineNote[] =>
  [...notes].sort((a, b) => a.line - b.line || a.reason.localeCompare(b.reason));
