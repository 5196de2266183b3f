import { type Message } from '@arbor/domain';
import { type ExportReport, type ExportSource } from './types';

export interface CheckpointLike {
  label: string;
  messageId: string;
  status?: string;
}

export const exportSource = (
  conversation: { id: string; title: string | null; tip: string | null },
  messages: readonly Message[],
  checkpoints: readonly CheckpointLike[],
): ExportSource => ({
  conversationId: conversation.id,
  title: conversation.title,
  messages,
  tip: conversation.tip,
  checkpoints: checkpoints
    .filter((c) => c.status !== 'dropped')
    .map((c) => ({ label: c.label, messageId: c.messageId })),
});

export const lostSummary = (report: ExportReport): { reason: string; count: number }[] => {
  const counts = new Map<string, number>();
  for (const n of report.lost) counts.set(n.reason, (counts.get(n.reason) ?? 0) + 1);
  return [...counts]
    .map(([reason, count]) => ({ reason, count }))
    .sort((a, b) => b.count - a.count || a.reason.localeCompare(b.reason));
};

/** For an HTTP header: at most `max` characters; groups that do not fit are counted in `more`. */
export const reportHeader = (report: ExportReport, max = 4000): string => {
  const groups = lostSummary(report);
  const ascii = (s: string) =>
    s.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  for (let keep = groups.length; keep >= 0; keep--) {
    const body = {
      format: report.format,
      messages: report.messages,
      lost: groups.slice(0, keep),
      ...(keep < groups.length ? { more: groups.length - keep } : {}),
    };
    const text = ascii(JSON.stringify(body));
    if (text.length <= max) return text;
  }
  return ascii(
    JSON.stringify({ format: report.format, messages: report.messages, more: groups.length }),
  );
};
