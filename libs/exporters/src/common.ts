import { type Message } from '@arbor/domain';
import { orderTree } from './order';
import { type ExportNote, type ExportReport, type ExportResult, type ExportSource } from './types';

export interface Plan {
  messages: Message[];
  parentOf: Map<string, string | null>;
  tip: string | null;
  byId: Map<string, Message>;
  lost: ExportNote[];
}

/** Neither tool's session file holds a system message (the harness writes its own): left out. */
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

/** Holds the place of a message with nothing the format carries: an empty turn is invalid. */
export const PLACEHOLDER_TEXT =
  '[not carried: this message held only reasoning or provider blocks, which this format has no place for]';

export const PLACEHOLDER_REASON =
  'message with nothing the format carries: written as a placeholder';

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

export const fileStamp = (iso: string): string => iso.replace(/[:.]/g, '-');

export function* jsonlChunks(lines: readonly unknown[]): Generator<string> {
  for (const l of lines) yield `${JSON.stringify(l)}\n`;
}

/** The lines share the messages' strings; `text` is joined only when read. */
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
