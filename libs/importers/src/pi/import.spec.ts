import { commitConversation, toolResultTurnEnds, treeProblems } from '../testing/commit';
import {
  jsonl,
  piAssistant,
  piCall,
  piHeader,
  piMsg,
  piResult,
  piUser,
  type Rec,
  text,
} from '../testing/records';
import { importPi } from './import';

const load = (records: Rec[]) => importPi('/s/2025_session.jsonl', jsonl(records));
const shape = (r: ReturnType<typeof load>, i = 0) =>
  r.conversations[i].turns.map((t) => [t.parentId, t.messages.map((m) => m.id)]);
const reasons = (notes: { line: number; reason: string; detail?: string }[]) =>
  notes.map((n) => (n.detail === undefined ? [n.line, n.reason] : [n.line, n.reason, n.detail]));
const expectSound = (r: ReturnType<typeof load>) => {
  for (const c of r.conversations) {
    const { session, failures } = commitConversation(c);
    expect(failures).toEqual([]);
    expect(treeProblems(session)).toEqual([]);
    expect(session.state.tip).toBe(c.tip);
  }
};

describe('pi importer, version 1 (linear, no ids)', () => {
  it('chains entries in file order, merges tool results, repairs unanswered calls', () => {
    const r = load([
      /* 1 */ piHeader(),
      /* 2 */ piMsg(piUser('read two files')),
      /* 3 */ piMsg(piAssistant([text('reading'), piCall('c1'), piCall('c2')])),
      /* 4 */ piMsg(piResult('c1', 'one')),
      /* 5 */ piMsg(piResult('c2', 'two', true)),
      /* 6 */ { type: 'thinking_level_change', thinkingLevel: 'high' },
      /* 7 */ piMsg(
        piAssistant([
          { type: 'thinking', thinking: 'hmm', thinkingSignature: 'sig' },
          text('done'),
        ]),
      ),
      /* 8 */ piMsg(piUser('edit it')),
      /* 9 */ piMsg(
        piAssistant([text('editing'), piCall('c3', 'edit')], { stopReason: 'aborted' }),
      ),
      /* 10 */ piMsg(piUser('never mind, stop')),
      /* 11 */ piMsg(piAssistant([], { stopReason: 'aborted' })),
      /* 12 */ piMsg(piResult('c9', 'orphan')),
      /* 13 */ piMsg(piAssistant([text('stopped')])),
    ]);
    expect(shape(r)).toEqual([
      [null, ['L2', 'L3', 'L4', 'L7']],
      ['L7', ['L8', 'L9']],
      ['L9', ['L10', 'L13']],
    ]);
    const [first, second] = r.conversations[0].turns.map((t) => t.messages);
    expect(first[1]).toEqual({
      id: 'L3',
      role: 'assistant',
      content: [
        text('reading'),
        { type: 'tool_use', id: 'c1', name: 'read', input: { path: 'a' } },
        { type: 'tool_use', id: 'c2', name: 'read', input: { path: 'a' } },
      ],
      model: 'claude-x',
      usage: {
        input_tokens: 10,
        output_tokens: 5,
        cache_read_input_tokens: 1,
        cache_creation_input_tokens: 2,
      },
    });
    expect(first[2].content).toEqual([
      { type: 'tool_result', tool_use_id: 'c1', content: [text('one')], is_error: false },
      { type: 'tool_result', tool_use_id: 'c2', content: [text('two')], is_error: true },
    ]);
    expect(first[3].content[0]).toEqual({ type: 'thinking', thinking: 'hmm', signature: 'sig' });
    // The aborted call lost its tool_use and became a final answer with its text.
    expect(second[1].content).toEqual([text('editing')]);
    expect(reasons(r.report.skipped)).toEqual([
      [6, 'thinking_level_change entry (not a message)'],
      [9, 'tool_use without its tool_result', 'c3 (edit)'],
      [11, 'assistant message without content (stopReason aborted)'],
      [12, 'tool_result without its tool_use', 'c9'],
      [12, 'user message with nothing left to import (empty or only dropped blocks)'],
    ]);
    expectSound(r);
  });

  it('imports a session that stops on tool results as a turn ending on them', () => {
    const r = load([
      /* 1 */ piHeader(),
      /* 2 */ piMsg(piUser('hi')),
      /* 3 */ piMsg(piAssistant([text('hello')])),
      /* 4 */ piMsg(piUser('read two files')),
      /* 5 */ piMsg(piAssistant([piCall('c1'), piCall('c2')], { stopReason: 'toolUse' })),
      /* 6 */ piMsg(piResult('c1', 'one')),
      /* 7 */ piMsg(piResult('c2', 'two', true)),
    ]);
    expect(shape(r)).toEqual([
      [null, ['L2', 'L3']],
      ['L3', ['L4', 'L5', 'L6']],
    ]);
    const results = r.conversations[0].turns[1].messages[2];
    expect(results.role).toBe('user');
    expect(results.content.map((b) => (b.type === 'tool_result' ? b.tool_use_id : b.type))).toEqual(
      ['c1', 'c2'],
    );
    expect(r.conversations[0].tip).toBe('L6');
    expect(r.report.skipped).toEqual([]);
    expect(toolResultTurnEnds(commitConversation(r.conversations[0]).session)).toEqual(['L6']);
    expectSound(r);
  });

  it('reads through a compaction (firstKeptEntryIndex), keeping every source message', () => {
    const r = load([
      piHeader(),
      piMsg(piUser('q1')),
      piMsg(piAssistant([text('a1')])),
      piMsg(piUser('q2')),
      piMsg(piAssistant([text('a2')])),
      { type: 'compaction', summary: 'they asked twice', firstKeptEntryIndex: 3, tokensBefore: 99 },
      piMsg(piUser('q3')),
      piMsg(piAssistant([text('a3')])),
    ]);
    expect(r.conversations[0].activeBranch).toEqual(['L2', 'L3', 'L4', 'L5', 'L7', 'L8']);
    expect(reasons(r.report.skipped)).toEqual([
      [
        6,
        'compaction summary not imported: every source message is kept, and Arbor compacts when it builds a context',
        'firstKeptEntryIndex 3',
      ],
    ]);
    expectSound(r);
  });

  it('turns bash executions and custom messages into user text, as pi sends them', () => {
    const r = load([
      piHeader(),
      piMsg({
        role: 'bashExecution',
        command: 'ls',
        output: 'a\nb',
        exitCode: 2,
        cancelled: false,
      }),
      piMsg({ role: 'bashExecution', command: 'secret', output: 'x', excludeFromContext: true }),
      piMsg({ role: 'hookMessage', customType: 'x', content: 'from a hook', display: true }),
      piMsg(piUser('what happened?')),
      piMsg(piAssistant([text('ls failed')])),
    ]);
    expect(r.conversations[0].turns[0].messages[0].content).toEqual([
      text('$ ls\na\nb\n(exit code 2)'),
      text('from a hook'),
      text('what happened?'),
    ]);
    expect(r.report.skipped.map((s) => s.line)).toEqual([3]);
    expect(r.report.changed.map((s) => s.line)).toEqual([2, 4]);
    expectSound(r);
  });

  it('merges two final answers in a row into one message, and says so', () => {
    const r = load([
      piHeader(),
      piMsg(piUser('q')),
      piMsg(piAssistant([text('first')])),
      piMsg(piAssistant([text('second')])),
      piMsg(piUser('q2')),
      piMsg(piAssistant([text('a2')])),
    ]);
    expect(shape(r)).toEqual([
      [null, ['L2', 'L3']],
      ['L3', ['L5', 'L6']],
    ]);
    expect(r.conversations[0].turns[0].messages[1].content).toEqual([
      text('first'),
      text('second'),
    ]);
    expect(reasons(r.report.changed)).toEqual([
      [4, 'assistant message merged into the one before it', 'line 3'],
    ]);
    expectSound(r);
  });
});

describe('pi importer, version 2+ (id/parentId tree)', () => {
  const tree = () => [
    /* 1 */ piHeader(3),
    /* 2 */ piMsg(piUser('q'), { id: 'aa000001', parentId: null }),
    /* 3 */ piMsg(piAssistant([text('a')]), { id: 'aa000002', parentId: 'aa000001' }),
    /* 4 */ piMsg(piUser('first try'), { id: 'aa000003', parentId: 'aa000002' }),
    /* 5 */ piMsg(piAssistant([text('meh')]), { id: 'aa000004', parentId: 'aa000003' }),
    /* 6 */ {
      type: 'branch_summary',
      id: 'aa000005',
      parentId: 'aa000002',
      fromId: 'aa000004',
      summary: 'tried once',
    },
    /* 7 */ piMsg(piUser('second try'), { id: 'aa000006', parentId: 'aa000005' }),
    /* 8 */ piMsg(piAssistant([text('better')]), { id: 'aa000007', parentId: 'aa000006' }),
    /* 9 */ {
      type: 'label',
      id: 'aa000008',
      parentId: 'aa000007',
      targetId: 'aa000002',
      label: 'base',
    },
    /* 10 */ {
      type: 'label',
      id: 'aa000009',
      parentId: 'aa000008',
      targetId: 'aa000006',
      label: 'mid',
    },
    /* 11 */ { type: 'session_info', id: 'aa00000a', parentId: 'aa000009', name: 'Refactor' },
  ];

  it('keeps the real branch, ends on the last entry, labels turn ends as checkpoints', () => {
    const r = load(tree());
    const [c] = r.conversations;
    expect(c.title).toBe('Refactor');
    expect(shape(r)).toEqual([
      [null, ['aa000001', 'aa000002']],
      ['aa000002', ['aa000003', 'aa000004']],
      ['aa000002', ['aa000005', 'aa000007']],
    ]);
    expect(c.turns[2].messages[0].content).toEqual([text('tried once'), text('second try')]);
    expect(c.branchPoints).toEqual(['aa000002']);
    expect(c.tip).toBe('aa000007');
    expect(c.checkpoints).toEqual([{ label: 'base', messageId: 'aa000002' }]);
    expect(reasons(r.report.skipped)).toEqual([
      [10, 'label not on the end of an imported turn', 'mid'],
    ]);
    expectSound(r);
  });

  it('imports a branch that stops on a tool result as a turn ending on it', () => {
    const records = tree();
    records.push(
      piMsg(piUser('read it'), { id: 'aa00000b', parentId: 'aa000004' }),
      piMsg(piAssistant([piCall('c1')], { stopReason: 'toolUse' }), {
        id: 'aa00000c',
        parentId: 'aa00000b',
      }),
      piMsg(piResult('c1', 'contents'), { id: 'aa00000d', parentId: 'aa00000c' }),
    );
    const r = load(records);
    const [c] = r.conversations;
    expect(c.tip).toBe('aa00000d');
    expect(c.turns.at(-1)).toMatchObject({
      parentId: 'aa000004',
      messages: [{ id: 'aa00000b' }, { id: 'aa00000c' }, { id: 'aa00000d', role: 'user' }],
    });
    expect(toolResultTurnEnds(commitConversation(c).session)).toEqual(['aa00000d']);
    expectSound(r);
  });

  it('follows the file: a last entry on the first branch puts the tip there', () => {
    const records = tree();
    records.push(
      piMsg(piUser('back'), { id: 'aa00000b', parentId: 'aa000004' }),
      piMsg(piAssistant([text('back again')]), { id: 'aa00000c', parentId: 'aa00000b' }),
    );
    const r = load(records);
    expect(r.conversations[0].tip).toBe('aa00000c');
    const turns = r.conversations[0].turns;
    // The active branch is committed last.
    expect(turns[turns.length - 1].messages.at(-1)?.id).toBe('aa00000c');
    expectSound(r);
  });
});
