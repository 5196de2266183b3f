/**
 * `arbor export --format claude-code|pi`: the conversation's tree, tip and checkpoints read
 * through the client (embedded store or a server, the same answers), written by
 * @arbor/exporters; the server's `GET …/export?format=claude-code|pi` writes the same file.
 */
import {
  type ExportFormat,
  type ExportReport,
  type ExportResult,
  exportSession,
  exportSource,
  lostSummary,
} from '@arbor/exporters';
import { type ArborClient } from './client/types';

export const exportSessionFile = async (
  client: ArborClient,
  id: string,
  format: ExportFormat,
  scope: 'tree' | 'branch',
): Promise<ExportResult> => {
  const [conversation, tree, messages] = await Promise.all([
    client.conversation(id),
    client.tree(id),
    client.messages(id, scope),
  ]);
  return exportSession(format, exportSource(conversation, messages, tree.checkpoints));
};

/** One line, then one line per kind of loss: what the file could not carry. */
export const renderExportReport = (report: ExportReport): string => {
  const groups = lostSummary(report);
  const head = `exported ${report.messages} messages as a ${report.format} session (${report.lines} lines)`;
  if (groups.length === 0) return `${head}; nothing lost\n`;
  return (
    [
      `${head}; not carried by the format:`,
      ...groups.map((g) => `  ${String(g.count).padStart(5)} × ${g.reason}`),
    ].join('\n') + '\n'
  );
};
