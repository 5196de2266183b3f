import {
  abandonedPath,
  BRANCH_SUMMARY_VERSION,
  type BranchSummary,
  summaryApplies,
  withBranchSummaries,
} from './branch-summary';
import { type Message } from './messages';
import {
  assistant,
  counterDeps,
  exec,
  messagesOf,
  newSession,
  ok,
  text,
  toolResult,
  toolUse,
  user,
  type Session,
} from './testing/session';

/** m1 user, m2 assistant; branch a: a1 user, a2 assistant; branch b: b1 user, b2 assistant. */
const tree = (): Session => {
  const s = newSession(counterDeps('x'));
  ok(s, { type: 'start', conversationId: 'c1', title: 'T' });
  const turn = (turnId: string, parentId: string | null, ids: [string, string]) =>
    ok(s, {
      type: 'commitTurn',
      turnId,
      parentId,
      messages: [
        { id: ids[0], ...user(text(`${ids[0]} asks`)) },
        { id: ids[1], ...assistant(text(`${ids[1]} answers`)) },
      ],
    });
  turn('t1', null, ['m1', 'm2']);
  turn('ta', 'm2', ['a1', 'a2']);
  turn('tb', 'm2', ['b1', 'b2']);
  return s;
};

const summaryOf = (over: Partial<BranchSummary>): BranchSummary => ({
  version: BRANCH_SUMMARY_VERSION,
  summaryId: 's1',
  ancestorId: 'm2',
  fromTip: 'a2',
  toTip: 'b2',
  abandonedIds: ['a1', 'a2'],
  ontoId: 'b1',
  summary: 'A tried X; it failed.',
  instruction: null,
  tokens: 7,
  summarizerModel: 'fake',
  windows: 1,
  ...over,
});

const path = (s: Session, ...ids: string[]): Message[] => {
  const all = messagesOf(s.log);
  return ids.map((id) => all.get(id) as Message);
};

describe('abandonedPath', () => {
  it('is the old tip path after the common ancestor, and where the new path goes on', () => {
    const s = tree();
    expect(abandonedPath(s.state, 'a2', 'b2')).toEqual({
      ok: true,
      ancestorId: 'm2',
      abandonedIds: ['a1', 'a2'],
      ontoId: 'b1',
    });
    expect(abandonedPath(s.state, 'a2', 'm2')).toEqual({
      ok: true,
      ancestorId: 'm2',
      abandonedIds: ['a1', 'a2'],
      ontoId: null,
    });
    expect(abandonedPath(s.state, 'a1', 'a2')).toEqual({ ok: false, reason: 'nothing_abandoned' });
  });
});

describe('summaryApplies', () => {
  it('on the branch it was made for only', () => {
    const made = summaryOf({});
    expect(summaryApplies(made, ['m1', 'm2', 'b1', 'b2'])).toBe(true);
    expect(summaryApplies(made, ['m1', 'm2', 'b1'])).toBe(true);
    expect(summaryApplies(made, ['m1', 'm2', 'a1', 'a2'])).toBe(false);
    expect(summaryApplies(made, ['m1', 'm2', 'c1'])).toBe(false);
    expect(summaryApplies(made, ['m1'])).toBe(false);
    // Made when moving to the branch point itself: any continuation but the abandoned one.
    const toPoint = summaryOf({ toTip: 'm2', ontoId: null });
    expect(summaryApplies(toPoint, ['m1', 'm2'])).toBe(true);
    expect(summaryApplies(toPoint, ['m1', 'm2', 'c1'])).toBe(true);
    expect(summaryApplies(toPoint, ['m1', 'm2', 'a1'])).toBe(false);
  });
});

describe('withBranchSummaries', () => {
  it('puts the summary right after the branch point, marked, and places recorded ones again', () => {
    const s = tree();
    const window = path(s, 'm1', 'm2', 'b1', 'b2');
    const { messages, placed } = withBranchSummaries(window, [summaryOf({})]);
    expect(messages.map((m) => m.id)).toEqual(['m1', 'm2', 'branch-summary-s1', 'b1', 'b2']);
    expect(placed).toEqual([{ summaryId: 's1', afterId: 'm2', messageId: 'branch-summary-s1' }]);
    const carried = messages[2];
    expect(carried.role).toBe('user');
    expect(carried.content).toEqual([
      {
        type: 'text',
        text: expect.stringContaining('<branch_summary>\nA tried X; it failed.\n</branch_summary>'),
      },
    ]);
    expect(carried.metadata).toEqual({ arbor: { branchSummary: 's1' } });
    // The window itself is untouched, and the recorded placement gives the same messages.
    expect(window.map((m) => m.id)).toEqual(['m1', 'm2', 'b1', 'b2']);
    expect(withBranchSummaries(window, [summaryOf({})], placed).messages).toEqual(messages);
    // Not on another branch; not when its branch point is before the window (a resume cut).
    expect(withBranchSummaries(path(s, 'm1', 'm2', 'a1'), [summaryOf({})]).placed).toEqual([]);
    expect(withBranchSummaries(path(s, 'b1', 'b2'), [summaryOf({})]).placed).toEqual([]);
  });

  it('after the answers of a branch point that called tools, so each call keeps its result', () => {
    const s = newSession(counterDeps('y'));
    ok(s, { type: 'start', conversationId: 'c2', title: 'T' });
    ok(s, {
      type: 'commitTurn',
      turnId: 't1',
      parentId: null,
      messages: [
        { id: 'u1', ...user(text('go')) },
        { id: 'c1', ...assistant(toolUse('tu1')) },
        { id: 'r1', ...user(toolResult('tu1')) },
        { id: 'd1', ...assistant(text('done')) },
      ],
    });
    const d = exec(s, { type: 'moveTip', messageId: 'u1' });
    expect(d.ok).toBe(true);
    const window = path(s, 'u1', 'c1', 'r1', 'd1');
    const { messages } = withBranchSummaries(window, [
      summaryOf({ ancestorId: 'c1', ontoId: 'r1', abandonedIds: ['r0'] }),
    ]);
    expect(messages.map((m) => m.id)).toEqual(['u1', 'c1', 'r1', 'branch-summary-s1', 'd1']);
  });
});

describe('moveTip with a branch summary', () => {
  it('appends TipMoved and BranchSummarized; state keeps the summary', () => {
    const s = tree();
    const summary = summaryOf({
      fromTip: 'b2',
      toTip: 'a2',
      abandonedIds: ['b1', 'b2'],
      ontoId: 'a1',
    });
    const d = exec(s, { type: 'moveTip', messageId: 'a2', branchSummary: summary });
    expect(d).toMatchObject({
      ok: true,
      events: [
        { type: 'TipMoved', data: { from: 'b2', to: 'a2', reason: 'branch' } },
        { type: 'BranchSummarized', data: summary },
      ],
    });
    expect(s.state.tip).toBe('a2');
    expect(s.state.branchSummaries).toEqual([summary]);
  });

  it('refuses a summary made for another tip or another range as stale_tip', () => {
    const s = tree();
    const wrongTip = summaryOf({ fromTip: 'a2', toTip: 'a2' });
    const d1 = exec(s, { type: 'moveTip', messageId: 'a2', branchSummary: wrongTip });
    expect(d1.ok ? null : d1.error.code).toBe('stale_tip');
    const wrongRange = summaryOf({
      fromTip: 'b2',
      toTip: 'a2',
      abandonedIds: ['b2'],
      ontoId: 'a1',
    });
    const d2 = exec(s, { type: 'moveTip', messageId: 'a2', branchSummary: wrongRange });
    expect(d2.ok ? null : d2.error.code).toBe('stale_tip');
    expect(s.state.tip).toBe('b2');
    expect(s.state.branchSummaries).toEqual([]);
  });
});
