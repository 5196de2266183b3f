/** What both writers share: which messages a format keeps, and where the others' children go. */
import { type Message } from '@arbor/domain';
import { orderTree } from './order';
import { type ExportNote, type ExportReport, type ExportResult, type ExportSource } from './types';

export interface Plan {
  /** The messages to write, in file order (the active branch last). */
  messages: Message[];
  /** The written parent of each written message (a left-out parent is skipped over). */
  parentOf: Map<string, string | null>;
  /** The tip, or the nearest written message above it. */
  tip: string | null;
  byId: Map<string, Message>;
  lost: ExportNote[];
}

/**
 * Orders the tree and leaves out system messages (neither tool's session files hold one: the
 * harness writes the system prompt itself), noting each; their children hang on their parent.
 * Message fields no format carries (pinned, metadata) are noted too.
 */
export const plan = (source: ExportSource, formatName: string): Plan => {
  const ordered = orderTree(source.messages, source.tip);
  const lost: ExportNote[] = [...ordered.notes];
  const byId = new Map(source.messages.map((m) => [m.id, m]));
  const kept = (id: string | null): string | null => {
    let cur = id;
    for (let steps = 0; cur !== null && steps <= byId.size; steps++) {
      const m = byId.get(cur);
      if (m === undefined) return null;
      if (m.role !== 'system') return cur;
      cur = m.parentId;
    }
    return null;
  };
  const messages: Message[] = [];
  const parentOf = new Map<string, string | null>();
  for (const m of ordered.messages) {
    if (m.role === 'system') {
      lost.push({
        messageId: m.id,
        reason: `system message left out: ${formatName} session files hold no system message`,
      });
      continue;
    }
    if (m.pinned === true)
      lost.push({ messageId: m.id, reason: `pinned flag not carried: ${formatName} has none` });
    if (m.metadata !== undefined && Object.keys(m.metadata).length > 0)
      lost.push({
        messageId: m.id,
        reason: `message metadata not carried: ${formatName} has none`,
      });
    messages.push(m);
    parentOf.set(m.id, byId.has(m.parentId ?? '') ? kept(m.parentId) : null);
  }
  return { messages, parentOf, tip: kept(source.tip), byId, lost };
};

/**
 * What a message says when none of its blocks has a place in the format (an assistant turn that
 * held only an OpenAI reasoning item): an empty message is no valid turn to either tool, and
 * leaving it out would join the messages around it, so it keeps its place with this text.
 */
export const PLACEHOLDER_TEXT =
  '[not carried: this message held only reasoning or provider blocks, which this format has no place for]';

export const PLACEHOLDER_REASON =
  'message with nothing the format carries: written as a placeholder';

/** The content to write: the blocks carried, or the placeholder (noted) when none is. */
export const orPlaceholder = <T>(
  messageId: string,
  carried: T[],
  placeholder: T,
  lost: ExportNote[],
): T[] => {
  if (carried.length > 0) return carried;
  lost.push({ messageId, reason: PLACEHOLDER_REASON, detail: PLACEHOLDER_TEXT });
  return [placeholder];
};

/** `2026-01-02T03:04:05.678Z` → `2026-01-02T03-04-05-678Z` (both tools' file-name stamps). */
export const fileStamp = (iso: string): string => iso.replace(/[:.]/g, '-');

/** The session file, one line at a time (each line and its newline): what a stream sends. */
export function* jsonlChunks(lines: readonly unknown[]): Generator<string> {
  for (const l of lines) yield `${JSON.stringify(l)}\n`;
}

/**
 * An export's result: the lines as objects (sharing the messages' strings, so no second copy of
 * the content), `chunks()` to stream them, and `text`, the same bytes joined, built only when read.
 */
export const sessionResult = (
  lines: readonly unknown[],
  fileName: string,
  report: ExportReport,
): ExportResult => ({
  lines,
  fileName,
  report,
  chunks: () => jsonlChunks(lines),
  get text() {
    return Array.from(jsonlChunks(lines)).join('');
  },
});
