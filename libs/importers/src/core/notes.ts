import { type LineNote } from '../types';

/** Collects what an import left out (`skipped`) or kept in another shape (`changed`). */
export interface Notes {
  readonly skipped: LineNote[];
  readonly changed: LineNote[];
  skip(line: number, reason: string, detail?: string): void;
  change(line: number, reason: string, detail?: string): void;
}

export const createNotes = (): Notes => {
  const skipped: LineNote[] = [];
  const changed: LineNote[] = [];
  return {
    skipped,
    changed,
    skip: (line, reason, detail) =>
      void skipped.push(detail === undefined ? { line, reason } : { line, reason, detail }),
    change: (line, reason, detail) =>
      void changed.push(detail === undefined ? { line, reason } : { line, reason, detail }),
  };
};

export const sortNotes = (notes: readonly LineNote[]): LineNote[] =>
  [...notes].sort((a, b) => a.line - b.line || a.reason.localeCompare(b.reason));
