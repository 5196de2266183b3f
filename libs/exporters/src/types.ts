import { type Message } from '@arbor/domain';

/** The session file formats Arbor writes for other tools. */
export type ExportFormat = 'claude-code' | 'pi';

/** A conversation as the exporters read it: the whole tree, its tip and its checkpoints. */
export interface ExportSource {
  conversationId: string;
  title: string | null;
  messages: readonly Message[];
  tip: string | null;
  checkpoints: readonly { label: string; messageId: string }[];
}

/** Something the target format cannot carry, and what happened to it. */
export interface ExportNote {
  messageId?: string;
  reason: string;
  detail?: string;
}

export interface ExportReport {
  format: ExportFormat;
  messages: number;
  lines: number;
  lost: ExportNote[];
}

export interface ExportResult {
  /** The session file (JSON Lines), joined when read: prefer `chunks()` for large exports. */
  readonly text: string;
  readonly lines: readonly unknown[];
  chunks(): Iterable<string>;
  fileName: string;
  report: ExportReport;
}
