import { type Message } from '@arbor/domain';

/** The session file formats Arbor writes for other tools. */
export type ExportFormat = 'claude-code' | 'pi';

/** A conversation as the exporters read it: the whole tree, its tip and its checkpoints. */
export interface ExportSource {
  /** Arbor's conversation id (the exported session's id is derived from it). */
  conversationId: string;
  title: string | null;
  /** Every message of the tree, in any order (each parent is in the list, or null). */
  messages: readonly Message[];
  /** The active branch ends here (null: an empty conversation). */
  tip: string | null;
  checkpoints: readonly { label: string; messageId: string }[];
}

/** Something the target format cannot carry, and what happened to it. */
export interface ExportNote {
  /** The message it concerns, when it concerns one. */
  messageId?: string;
  /** Stable text, the same for every note of its kind (reports group by it). */
  reason: string;
  detail?: string;
}

export interface ExportReport {
  format: ExportFormat;
  /** Arbor messages written. */
  messages: number;
  /** Lines of the session file. */
  lines: number;
  /** What the format cannot carry: left out, or kept in another shape. */
  lost: ExportNote[];
}

export interface ExportResult {
  /** The session file (JSON Lines), joined when read: prefer `chunks()` for large exports. */
  readonly text: string;
  /** The session file's lines, as the objects written. */
  readonly lines: readonly unknown[];
  /** The session file one line (with its newline) at a time: the same bytes as `text`. */
  chunks(): Iterable<string>;
  /** The file name the tool would give it (where it matters: pi's `<timestamp>_<id>.jsonl`). */
  fileName: string;
  report: ExportReport;
}
