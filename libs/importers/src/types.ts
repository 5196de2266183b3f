import { type Block, type MessageInput, type Usage } from '@arbor/domain';

/** The session file formats Arbor imports. */
export type SessionFormat = 'claude-code' | 'pi' | 'codex';

/** One line of the source file and why it was left out (or changed to fit). */
export interface LineNote {
  /** 1-based line number in the file (0: the file as a whole). */
  line: number;
  /** Stable text, the same for every line it applies to (reports group by it). */
  reason: string;
  /** The particulars: an id, a tool name, a label. */
  detail?: string;
}

/** One turn to commit, in commit order: it chains from `parentId` (a source message id). */
export interface ImportedTurn {
  parentId: string | null;
  messages: MessageInput[];
  /** File lines whose records ended up in this turn. */
  lines: number[];
}

export type ConversationKind = 'main' | 'sidechain' | 'separate-root';

export interface ImportedConversation {
  title: string;
  /**
   * `main`: the session itself; `sidechain`: a subagent transcript (its own file, or sidechain
   * records of a main file); `separate-root`: a second root turn of a file (Arbor conversations
   * have one root).
   */
  kind: ConversationKind;
  /** Turns in commit order: every turn after the turn it hangs on. */
  turns: ImportedTurn[];
  /** Where the tip must be after import (the branch the file was last on), or null. */
  tip: string | null;
  /** root → tip, message ids. */
  activeBranch: string[];
  /** Message ids with two or more children: the file's real branches. */
  branchPoints: string[];
  /** Labels to set after import (pi `label` entries on turn ends). */
  checkpoints: { label: string; messageId: string }[];
  metadata: Record<string, unknown>;
}

export interface ImportReport {
  file: string;
  format: SessionFormat;
  conversations: number;
  turns: number;
  messages: number;
  /** What was left out, line by line. */
  skipped: LineNote[];
  /** What was kept in another shape (unknown blocks as text, merged messages, copied prefixes). */
  changed: LineNote[];
}

export interface FileImport {
  conversations: ImportedConversation[];
  report: ImportReport;
}

/** A block with the file line it came from. */
export interface Item {
  block: Block;
  line: number;
}

/**
 * One record of a session file, format-neutral: records link by `parentId`; a record without
 * `message` (system, progress, model change...) is transparent: its children hang on its parent.
 */
export interface SourceRecord {
  line: number;
  id: string;
  parentId: string | null;
  message?: SourceMessage;
  /** Claude Code subagent records. */
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
