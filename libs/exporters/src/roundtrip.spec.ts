/**
 * Every fixture (real, and written where no real file exists), imported and committed, exported
 * to each format and imported again, gives the same tree (ids, parents, roles, content), the same
 * active branch and, for pi, the same checkpoints; whatever a format cannot carry is in the
 * export's report.
 */
import path from 'node:path';
import { REAL_FIXTURES, WRITTEN_FIXTURES } from '@arbor/fixtures';
import { importSessionFile, importSessionText, sessionFiles } from '@arbor/importers';
import { EXPORT_FORMATS, exportSession, PLACEHOLDER_REASON, PLACEHOLDER_TEXT } from './index';
import { commitImported } from './testing/roundtrip';

const FILES = [...sessionFiles(REAL_FIXTURES), ...sessionFiles(WRITTEN_FIXTURES)];
const name = (f: string) => path.relative(path.dirname(REAL_FIXTURES), f);

const cases = FILES.flatMap((file) =>
  importSessionFile(file).conversations.map((c, i) => [`${name(file)} #${i}`, c] as const),
);

describe('round trips through the Claude Code and pi exporters', () => {
  it('covers every fixture format', () => {
    const formats = new Set(FILES.map((f) => importSessionFile(f).report.format));
    expect([...formats].sort()).toEqual(['claude-code', 'codex', 'pi']);
    expect(FILES.some((f) => f.includes('pi-v3'))).toBe(true);
  });

  describe.each(cases)('%s', (_, conversation) => {
    const first = commitImported(conversation);

    it.each(EXPORT_FORMATS.map((f) => [f]))(
      '→ %s → import: same tree and active branch',
      (format) => {
        expect(first.failures).toEqual([]);
        const out = exportSession(format, first.source);
        const again = importSessionText(out.fileName, out.text, { format });
        expect(again.report.format).toBe(format);
        expect(again.conversations).toHaveLength(1);
        const second = commitImported(again.conversations[0]);
        expect(second.failures).toEqual([]);
        // Reasoning items and opaque provider blocks (Codex) have no place in either format:
        // they come back without them, and the export says each was lost.
        // A message left with none of its blocks keeps its place with the placeholder text,
        // and the report names it.
        const carried = (b: { type: string }) => b.type !== 'reasoning' && b.type !== 'provider';
        const before = first.tree.messages as { id: string; content: { type: string }[] }[];
        const dropped = before.flatMap((m) => m.content.filter((b) => !carried(b)));
        const emptied = before.filter((m) => m.content.length > 0 && !m.content.some(carried));
        expect(second.tree.messages).toEqual(
          before.map((m) => ({
            ...m,
            content: emptied.includes(m)
              ? [{ type: 'text', text: PLACEHOLDER_TEXT }]
              : m.content.filter(carried),
          })),
        );
        expect(out.report.lost.filter((n) => / block not carried/.test(n.reason))).toHaveLength(
          dropped.length,
        );
        expect(
          out.report.lost.filter((n) => n.reason === PLACEHOLDER_REASON).map((n) => n.messageId),
        ).toEqual(expect.arrayContaining(emptied.map((m) => m.id)));
        expect(out.report.lost.filter((n) => n.reason === PLACEHOLDER_REASON).length).toBe(
          emptied.length,
        );
        // No message the file holds is empty (neither tool takes an empty turn).
        const messagesOfFile = out.lines.flatMap((l) => {
          const line = l as { type: string; message?: { role: string; content: unknown[] } };
          return line.message !== undefined && line.message.role !== 'toolResult'
            ? [line.message]
            : [];
        });
        expect(messagesOfFile.filter((m) => m.content.length === 0)).toEqual([]);
        expect(second.tree.activeBranch).toEqual(first.tree.activeBranch);
        // Nothing the importer had to leave out or reshape on the way back.
        expect(again.report.skipped).toEqual([]);
        if (format === 'pi') expect(second.tree.checkpoints).toEqual(first.tree.checkpoints);
        else {
          expect(second.tree.checkpoints).toEqual([]);
          expect(
            out.report.lost
              .filter((n) => n.reason.startsWith('checkpoint label not carried'))
              .map((n) => n.detail)
              .sort(),
          ).toEqual(first.tree.checkpoints.map((c) => c.label));
        }
        expect(out.report.messages).toBe(first.source.messages.length);
      },
    );
  });
});
