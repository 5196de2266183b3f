/**
 * A pi v3 session tree written by pi's own SessionManager (test/fixtures/written/pi-v3, see its
 * README): the real branch made by `branchWithSummary`, labels as checkpoints, the name, the
 * compaction and the interrupted call, each imported or reported.
 */
import fs from 'node:fs';
import path from 'node:path';
import { WRITTEN_PI_V3 } from '@arbor/fixtures';
import { importSessionFile } from '../index';
import { commitConversation, treeProblems } from '../testing/commit';

const FILE = path.join(WRITTEN_PI_V3, 'tree-session.jsonl');
const entries = fs
  .readFileSync(FILE, 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l) as Record<string, unknown>);
const lineOf = (type: string) => entries.findIndex((e) => e.type === type) + 1;

describe('pi v3 tree written by pi itself', () => {
  const r = importSessionFile(FILE);
  const [c] = r.conversations;

  it('is one conversation, committed whole, the tip on the branch pi was last on', () => {
    expect(r.report.format).toBe('pi');
    expect(r.conversations).toHaveLength(1);
    const { session, failures } = commitConversation(c);
    expect(failures).toEqual([]);
    expect(treeProblems(session)).toEqual([]);
    const lastMessage = [...entries].reverse().find((e) => e.type === 'message');
    expect(c.tip).toBe(lastMessage?.id);
    expect(session.state.tip).toBe(c.tip);
  });

  it('keeps the real branch: the answer branchWithSummary went back to has two children', () => {
    const summary = entries.find((e) => e.type === 'branch_summary') as Record<string, unknown>;
    expect(c.branchPoints).toEqual([summary.parentId]);
    // The branch summary is what pi sends the model: user text at the start of the new branch.
    expect(c.activeBranch).toContain(summary.id);
    expect(r.report.changed).toContainEqual({
      line: lineOf('branch_summary'),
      reason: 'branch summary imported as user text, as pi sends it',
    });
  });

  it('turns the labels into checkpoints and the session name into the title', () => {
    const labels = entries
      .filter((e) => e.type === 'label')
      .map((e) => ({ label: e.label, messageId: e.targetId }));
    expect(labels).toHaveLength(3);
    expect([...c.checkpoints].sort((a, b) => a.label.localeCompare(b.label))).toEqual(
      [...labels].sort((a, b) => String(a.label).localeCompare(String(b.label))),
    );
    expect(c.title).toBe('Fixture: a pi v3 tree');
  });

  it('reports the compaction, the settings and custom entries, and the interrupted call', () => {
    const compaction = entries.find((e) => e.type === 'compaction') as Record<string, unknown>;
    expect(r.report.skipped.find((n) => n.line === lineOf('compaction'))?.detail).toBe(
      `firstKeptEntryId ${String(compaction.firstKeptEntryId)}`,
    );
    const skipped = r.report.skipped.map((n) => [n.line, n.reason]);
    expect(skipped).toContainEqual([
      lineOf('compaction'),
      'compaction summary not imported: every source message is kept, and Arbor compacts when it builds a context',
    ]);
    expect(skipped).toContainEqual([lineOf('model_change'), 'model_change entry (not a message)']);
    expect(skipped).toContainEqual([lineOf('custom'), 'custom entry (not a message)']);
    expect(
      r.report.skipped.find((n) => n.reason === 'tool_use without its tool_result')?.detail,
    ).toBe('toolu_03 (bash)');
    // The image of the branch's first prompt made it in.
    const blocks = c.turns.flatMap((t) => t.messages).flatMap((m) => m.content);
    expect(blocks.some((b) => b.type === 'image')).toBe(true);
  });
});
