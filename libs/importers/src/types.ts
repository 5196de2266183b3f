import { type Block, type MessageInput, type Usage } from '@arbor/domain';

/** The session file formats Arbor imports. */
export type SessionFormat = 'claude-code' | 'pi' | 'codex';

/** One line of the source file and why it was left out (or changed to fit). */
export interface LineNote {
  /** 1-based line number in the file (0: the file as a whole). */
  line: number;
  /** Stable text, the same for every line it applies to (reports group by it). */
  reason: string;
  detail?: string;
}

/** One turn to commit, in commit order: it chains from `parentId` (a source message id). */
export interface ImportedTurn {
  parentId: string | null;
  messages: MessageInput[];
  lines: number[];
}

export type ConversationKind = 'main' | 'sidechain' | 'separate-root';

export interface ImportedConversation {
  title: string;
  /** `separate-root`: a second root turn of a file (Arbor conversations have one root). */
  kind: ConversationKind;
  turns: ImportedTurn[];
  /** Where the tip must be after import (the branch the file was last on), or null. */
  tip: string | null;
  activeBranch: string[];
  branchPoints: string[];
  checkpoints: { label: string; messageId: string }[];
  metadata: Record<string, unknown>;
}

export interface ImportReport {
  file: string;
  format: SessionFormat;
  conversations: number;
  turns: number;
  messages: number;
  skipped: LineNote[];
  changed: LineNote[];
}

export interface FileImport {
  conversations: ImportedConversation[];
  report: ImportReport;
}

export interface Item {
  block: Block;
  line: number;
}

/** A record without `message` is transparent: its children hang on its parent. */
export interface SourceRecord {
  line: number;
  id: string;
  parentId: string | null;
  message?: SourceMessage;
  sidechain?: boolean;
}

export interface SourceMessage {
  role: 'user' | 'assistant';
  /** Lines of one API message share it (Claude Code `message.id`): they merge. */
  apiId?: string;
  items: Item[];
  model?: string;
  usage?: Usage;
  timestamp?: string;
}
