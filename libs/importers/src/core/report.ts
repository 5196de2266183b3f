import {
  type FileImport,
  type ImportedConversation,
  type LineNote,
  type SessionFormat,
} from '../types';
import { type Notes } from './notes';

const unique = (notes: readonly LineNote[]): LineNote[] => {
  const seen = new Set<string>();
  return [...notes]
    .sort((a, b) => a.line - b.line || a.reason.localeCompare(b.reason))
    .filter((n) => {
      const k = `${n.line}\n${n.reason}\n${n.detail ?? ''}`;
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
};

export const fileImport = (
  file: string,
  format: SessionFormat,
  conversations: ImportedConversation[],
  notes: Notes,
): FileImport => ({
  conversations,
  report: {
    file,
    format,
    conversations: conversations.length,
    turns: conversations.reduce((n, c) => n + c.turns.length, 0),
    messages: conversations.reduce(
      (n, c) => n + c.turns.reduce((m, t) => m + t.messages.length, 0),
      0,
    ),
    skipped: unique(notes.skipped),
    changed: unique(notes.changed),
  },
});
