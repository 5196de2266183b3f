/** What each format cannot carry is in the report, and the rest still reads back. */
import { type Message } from '@arbor/domain';
import { importSessionText } from '@arbor/importers';
import { exportClaudeCode, exportPi, exportSession, reportHeader } from './index';
import { type ExportSource } from './types';

const m = (
  id: string,
  parentId: string | null,
  role: Message['role'],
  extra: Partial<Message> = {},
): Message => ({
  id,
  parentId,
  role,
  content: [{ type: 'text', text: `${role} ${id}` }],
  turnId: `t-${id}`,
  createdAt: `2026-01-01T00:00:0${id.length}.000Z`,
  ...extra,
});

const source = (over: Partial<ExportSource> = {}): ExportSource => ({
  conversationId: 'conv',
  title: 'Title',
  messages: [
    m('s', null, 'system'),
    m('u1', 's', 'user', { pinned: true }),
    m('a1', 'u1', 'assistant', { model: 'claude-x', metadata: { k: 1 } }),
    m('u2', 'a1', 'user'),
    m('a2', 'u2', 'assistant', { model: 'mystery-7b' }),
  ],
  tip: 'a2',
  checkpoints: [
    { label: 'one', messageId: 'a1' },
    { label: 'gone', messageId: 'nope' },
  ],
  ...over,
});

const reasons = (lost: { reason: string; messageId?: string }[]) =>
  lost.map((n) => `${n.messageId ?? '-'}: ${n.reason}`).sort();

describe('exporters', () => {
  it('pi: leaves out the system message (children on its parent), reports every loss', () => {
    const out = exportPi(source());
    expect(reasons(out.report.lost)).toEqual([
      'a1: message metadata not carried: pi has none',
      'a2: provider not known from the model name: written as provider "unknown"',
      'nope: checkpoint on a message that is not written: label left out',
      's: system message left out: pi session files hold no system message',
      'u1: pinned flag not carried: pi has none',
    ]);
    const [c] = importSessionText(out.fileName, out.text, { format: 'pi' }).conversations;
    expect(c.activeBranch).toEqual(['u1', 'a1', 'u2', 'a2']);
    expect(c.checkpoints).toEqual([{ label: 'one', messageId: 'a1' }]);
    expect(c.title).toBe('Title');
    expect(out.fileName).toBe('2026-01-01T00-00-02-000Z_conv.jsonl');
    const header = JSON.parse(out.text.split('\n')[0]) as Record<string, unknown>;
    expect(header).toMatchObject({ type: 'session', version: 3, id: 'conv' });
  });

  it('claude-code: reports the checkpoints it has no labels for', () => {
    const out = exportClaudeCode(source());
    expect(reasons(out.report.lost)).toEqual([
      'a1: checkpoint label not carried: Claude Code session files have no labels',
      'a1: message metadata not carried: Claude Code has none',
      'nope: checkpoint label not carried: Claude Code session files have no labels',
      's: system message left out: Claude Code session files hold no system message',
      'u1: pinned flag not carried: Claude Code has none',
    ]);
    const [c] = importSessionText(out.fileName, out.text, { format: 'claude-code' }).conversations;
    expect(c.activeBranch).toEqual(['u1', 'a1', 'u2', 'a2']);
    expect(c.title).toBe('Title');
  });

  it('an empty conversation: pi writes the header alone, Claude Code nothing', () => {
    const empty = source({ messages: [], tip: null, checkpoints: [] });
    expect(exportPi(empty).text.trim().split('\n')).toHaveLength(1);
    expect(exportSession('claude-code', empty).text).toBe('');
  });

  it('the report header is ASCII JSON, grouped, and bounded', () => {
    const out = exportClaudeCode(source());
    const h = reportHeader(out.report);
    expect(h).toMatch(/^[\x20-\x7e]+$/);
    expect(JSON.parse(h)).toMatchObject({
      format: 'claude-code',
      lost: expect.arrayContaining([
        {
          reason: 'checkpoint label not carried: Claude Code session files have no labels',
          count: 2,
        },
      ]),
    });
    const small = JSON.parse(reportHeader(out.report, 120)) as { more?: number };
    expect(small.more).toBeGreaterThan(0);
    expect(reportHeader(out.report, 120).length).toBeLessThanOrEqual(120);
  });
});
