/** Arbor tree → a Claude Code session file (what it writes and loses: README.md). */
import { type Message } from '@arbor/domain';
import { orPlaceholder, PLACEHOLDER_TEXT, plan, sessionResult } from './common';
import { type ExportNote, type ExportResult, type ExportSource } from './types';

export interface ClaudeCodeExportOptions {
  cwd?: string;
}

export const exportClaudeCode = (
  source: ExportSource,
  options: ClaudeCodeExportOptions = {},
): ExportResult => {
  const p = plan(source, 'Claude Code');
  const lost: ExportNote[] = [...p.lost];
  const sessionId = source.conversationId;
  const lines: unknown[] = [];
  if (source.title !== null && source.title !== '' && p.tip !== null)
    lines.push({ type: 'summary', summary: source.title, leafUuid: p.tip });
  const base = (m: Message) => ({
    parentUuid: p.parentOf.get(m.id) ?? null,
    isSidechain: false,
    userType: 'external',
    cwd: options.cwd ?? '/',
    sessionId,
    version: 'arbor-export',
  });
  /** Reasoning items and opaque provider blocks have no place in an Anthropic-shaped session. */
  const placeholder = { type: 'text', text: PLACEHOLDER_TEXT };
  const carriedOf = (m: Message): unknown[] =>
    m.content.flatMap((b) => {
      if (b.type === 'reasoning' || b.type === 'provider') {
        lost.push({
          messageId: m.id,
          reason: `${b.type} block not carried: Claude Code sessions hold Anthropic content only`,
        });
        return [];
      }
      if (b.clientData === undefined) return [b];
      const { clientData: _omit, ...rest } = b;
      return [rest];
    });
  const contentOf = (m: Message) => orPlaceholder(m.id, carriedOf(m), placeholder, lost);
  for (const m of p.messages) {
    if (m.role === 'assistant') {
      const hasCall = m.content.some((b) => b.type === 'tool_use');
      lines.push({
        ...base(m),
        type: 'assistant',
        message: {
          id: `msg_${m.id}`,
          type: 'message',
          role: 'assistant',
          model: m.model ?? '<synthetic>',
          content: contentOf(m),
          stop_reason: hasCall ? 'tool_use' : 'end_turn',
          stop_sequence: null,
          ...(m.usage !== undefined ? { usage: m.usage } : {}),
        },
        uuid: m.id,
        timestamp: m.createdAt,
      });
    } else {
      lines.push({
        ...base(m),
        type: 'user',
        message: { role: 'user', content: contentOf(m) },
        uuid: m.id,
        timestamp: m.createdAt,
      });
    }
  }
  for (const cp of source.checkpoints)
    lost.push({
      messageId: cp.messageId,
      reason: 'checkpoint label not carried: Claude Code session files have no labels',
      detail: cp.label,
    });
  return sessionResult(lines, `${sessionId}.jsonl`, {
    format: 'claude-code',
    messages: p.messages.length,
    lines: lines.length,
    lost,
  });
};
