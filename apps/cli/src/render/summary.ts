/** The import summary, for people. */
import path from 'node:path';
import { type ImportSummary } from '../import';

const n = (x: number): string => x.toLocaleString('en-US');

/** Notes grouped by reason, most frequent first. */
const grouped = (notes: ImportSummary['skipped']): string[] => {
  const counts = new Map<string, number>();
  for (const { note } of notes) counts.set(note.reason, (counts.get(note.reason) ?? 0) + 1);
  return [...counts]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([reason, count]) => `  ${String(count).padStart(6)}  ${reason}`);
};

export const renderImportSummary = (
  s: ImportSummary,
  where: string,
  options: { verbose: boolean },
): string => {
  const kinds = new Map<string, number>();
  for (const c of s.conversations) kinds.set(c.kind, (kinds.get(c.kind) ?? 0) + 1);
  const kindText = [...kinds].map(([k, v]) => `${v} ${k}`).join(', ');
  const secs = s.commitMs / 1000;
  const rate = secs > 0 ? Math.round(s.messages / secs) : 0;
  const out = [
    `imported ${n(s.files)} file(s) → ${n(s.conversations.length)} conversation(s)` +
      (kindText ? ` (${kindText})` : '') +
      `, ${n(s.turns)} turns, ${n(s.messages)} messages`,
    `  into ${where}`,
    `  read and converted in ${(s.readMs / 1000).toFixed(2)} s; committed in ${secs.toFixed(2)} s` +
      ` — ${n(rate)} messages/s, ${n(secs > 0 ? Math.round(s.turns / secs) : 0)} turns/s`,
  ];
  if (s.replayedTurns > 0)
    out.push(`  ${n(s.replayedTurns)} turns were already there (a resumed import): replayed`);
  out.push(`skipped: ${n(s.skipped.length)} line note(s)`, ...grouped(s.skipped));
  out.push(`changed to fit: ${n(s.changed.length)} line note(s)`, ...grouped(s.changed));
  if (options.verbose) {
    out.push('by line:');
    for (const { file, note } of [...s.skipped, ...s.changed].sort(
      (a, b) => a.file.localeCompare(b.file) || a.note.line - b.note.line,
    ))
      out.push(
        `  ${path.basename(file)}:${note.line}  ${note.reason}${note.detail ? ` (${note.detail})` : ''}`,
      );
  }
  out.push('conversations:');
  for (const c of s.conversations)
    out.push(
      `  ${c.id}  ${c.kind.padEnd(13)} ${String(c.messages).padStart(5)} msgs  ${c.title}` +
        (c.resumed ? '  (resumed)' : ''),
    );
  if (s.failures.length > 0) {
    out.push(`FAILED: ${s.failures.length} conversation(s)`);
    for (const f of s.failures) out.push(`  ${path.basename(f.file)} "${f.title}": ${f.error}`);
  }
  return out.join('\n');
};
