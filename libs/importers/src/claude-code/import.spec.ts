import { checkTurn } from '@arbor/domain';
import { commitConversation, toolResultTurnEnds, treeProblems } from '../testing/commit';
import { cc, ccA, ccCall, ccResult, ccU, jsonl, type Rec, text } from '../testing/records';
import { importClaudeCode } from './import';

const load = (records: Rec[]) => importClaudeCode('/x/session.jsonl', jsonl(records));
const shape = (r: ReturnType<typeof load>, i = 0) =>
  r.conversations[i].turns.map((t) => [t.parentId, t.messages.map((m) => m.id)]);
const reasons = (notes: { line: number; reason: string; detail?: string }[]) =>
  notes.map((n) => (n.detail === undefined ? [n.line, n.reason] : [n.line, n.reason, n.detail]));

/** Every conversation commits whole through the decider, every path valid. */
const expectSound = (r: ReturnType<typeof load>) => {
  for (const c of r.conversations) {
    const { session, failures } = commitConversation(c);
    expect(failures).toEqual([]);
    expect(treeProblems(session)).toEqual([]);
    expect(session.state.tip).toBe(c.tip);
  }
};

describe('Claude Code importer', () => {
  it('applies every rule on one synthetic file, and reports each by line', () => {
    const r = load([
      /* 1 */ cc('user', 'u1', null, ccU('hello')),
      /* 2 */ cc('system', 's1', 'u1'),
      /* 3 */ cc(
        'assistant',
        'a1',
        's1',
        ccA('m1', [{ type: 'thinking', thinking: 'x', signature: '' }]),
      ),
      /* 4 */ cc('assistant', 'a2', 'a1', ccA('m1', [text('let me look')])),
      /* 5 */ cc('assistant', 'a3', 'a2', ccA('m1', [ccCall('t1')])),
      /* 6 */ cc('assistant', 'a4', 'a3', ccA('m1', [ccCall('t2', 'x')])),
      /* 7 */ cc('progress', 'p1', 'a3'),
      /* 8 */ cc('user', 'r1', 'p1', ccU([ccResult('t1', 'files')])),
      /* 9 */ { type: 'file-history-snapshot', snapshot: {} },
      /* 10 */ cc('assistant', 'a5', 'r1', ccA('m2', [text('done')])),
      /* 11 */ cc('user', 'u2', 'a5', ccU([ccResult('ghost', 'x'), text('next')])),
      /* 12 */ cc('assistant', 'a6', 'u2', ccA('m3', [text('ok')])),
      /* 13 */ cc('attachment', 'at1', 'a5'),
      /* 14 */ cc('user', 'u3', 'at1', ccU('edited next')),
      /* 15 */ cc('user', 'u4', 'u3', ccU([text('and more'), text('')])),
      /* 16 */ cc('assistant', 'a7', 'u4', ccA('m4', [text('ok 2')])),
      /* 17 */ cc('user', 'u5', 'a7', ccU('never answered')),
      /* 18 */ { type: 'summary', leafUuid: 'nowhere', summary: 'a title' },
    ]);
    expect(shape(r)).toEqual([
      [null, ['u1', 'a1', 'r1', 'a5']],
      ['a5', ['u2', 'a6']],
      ['a5', ['u3', 'a7']],
    ]);
    const [t1, t2, t3] = r.conversations[0].turns.map((t) => t.messages);
    expect(t1[1].content).toEqual([text('let me look'), ccCall('t1')]);
    expect(t2[0].content).toEqual([text('next')]);
    expect(t3[0].content).toEqual([text('edited next'), text('and more')]);
    const [c] = r.conversations;
    expect(c.branchPoints).toEqual(['a5']);
    expect(c.tip).toBe('a7');
    expect(c.activeBranch).toEqual(['u1', 'a1', 'r1', 'a5', 'u3', 'a7']);
    expect(reasons(r.report.skipped)).toEqual([
      [3, 'thinking block without signature (providers reject it)'],
      [6, 'tool_use without its tool_result', 't2 (x)'],
      [9, 'file-history-snapshot record without uuid'],
      [11, 'tool_result without its tool_use', 'ghost'],
      [15, 'empty text block'],
      [17, 'not in a finished turn (no final answer follows it on its branch)'],
      [18, 'summary whose leafUuid points to no record of this file'],
    ]);
    expect(r.report).toMatchObject({ conversations: 1, turns: 3, messages: 8 });
    expectSound(r);
  });

  it('copies a prefix shared by two answers (a branch inside a tool loop) under new ids', () => {
    const r = load([
      cc('user', 'u0', null, ccU('first')),
      cc('assistant', 'a0', 'u0', ccA('m0', [text('hi')])),
      cc('user', 'u1', 'a0', ccU('run it')),
      cc('assistant', 'a1', 'u1', ccA('m1', [ccCall('t1', 'run')])),
      cc('user', 'r1', 'a1', ccU([ccResult('t1', 'out')])),
      cc('assistant', 'a2', 'r1', ccA('m2', [text('answer A')])),
      cc('assistant', 'a3', 'r1', ccA('m3', [text('answer B (retried call)')])),
    ]);
    expect(shape(r)).toEqual([
      [null, ['u0', 'a0']],
      ['a0', ['u1', 'a1', 'r1', 'a2']],
      ['a0', ['u1-2', 'a1-2', 'r1-2', 'a3']],
    ]);
    expect(r.conversations[0].branchPoints).toEqual(['a0']);
    expect(r.conversations[0].activeBranch).toEqual(['u0', 'a0', 'u1-2', 'a1-2', 'r1-2', 'a3']);
    expect(r.report.changed.map((n) => n.reason)).toContain(
      'message copied under a new id (a branch inside a turn)',
    );
    expectSound(r);
  });

  it('merges parallel tool calls whose results hang on different lines: no false branch', () => {
    const r = load([
      cc('user', 'u0', null, ccU('go')),
      cc('assistant', 'a1', 'u0', ccA('m1', [ccCall('t1')])),
      cc('assistant', 'a2', 'a1', ccA('m1', [ccCall('t2')])),
      // t1's result hangs on a1 (a sibling of a2), t2's on a2: it looks like a fork.
      cc('user', 'r1', 'a1', ccU([ccResult('t1')])),
      cc('user', 'r2', 'a2', ccU([ccResult('t2')])),
      cc('assistant', 'a3', 'r2', ccA('m2', [text('both done')])),
    ]);
    expect(shape(r)).toEqual([[null, ['u0', 'a1', 'r1', 'a3']]]);
    expect(r.conversations[0].turns[0].messages[2].content).toEqual([
      ccResult('t1'),
      ccResult('t2'),
    ]);
    expect(r.conversations[0].branchPoints).toEqual([]);
    expectSound(r);
  });

  describe('a session that stops on tool results (no answer after them)', () => {
    const turnEnds = (r: ReturnType<typeof load>) =>
      toolResultTurnEnds(commitConversation(r.conversations[0]).session);

    it('imports the last turn as one ending on the results, parallel ones in one message', () => {
      const r = load([
        /* 1 */ cc('user', 'u0', null, ccU('hi')),
        /* 2 */ cc('assistant', 'a0', 'u0', ccA('m0', [text('hello')])),
        /* 3 */ cc('user', 'u1', 'a0', ccU('list both')),
        /* 4 */ cc('assistant', 'a1', 'u1', ccA('m1', [text('listing'), ccCall('t1')])),
        /* 5 */ cc('assistant', 'a2', 'a1', ccA('m1', [ccCall('t2')])),
        /* 6 */ cc('user', 'r1', 'a2', ccU([ccResult('t1', 'one')])),
        /* 7 */ cc('user', 'r2', 'r1', ccU([ccResult('t2', 'two')])),
        /* 8 */ cc('progress', 'p1', 'r2'),
      ]);
      expect(shape(r)).toEqual([
        [null, ['u0', 'a0']],
        ['a0', ['u1', 'a1', 'r1']],
      ]);
      const last = r.conversations[0].turns[1].messages;
      expect(last[1].content).toEqual([text('listing'), ccCall('t1'), ccCall('t2')]);
      expect(last[2]).toEqual({
        id: 'r1',
        role: 'user',
        content: [ccResult('t1', 'one'), ccResult('t2', 'two')],
      });
      expect(r.conversations[0].tip).toBe('r1');
      expect(r.report.skipped).toEqual([]);
      expect(turnEnds(r)).toEqual(['r1']);
      expectSound(r);
    });

    it('keeps an interruption typed after the results in the message that ends the turn', () => {
      const r = load([
        /* 1 */ cc('user', 'u1', null, ccU('run it')),
        /* 2 */ cc('assistant', 'a1', 'u1', ccA('m1', [ccCall('t1', 'run')])),
        /* 3 */ cc('user', 'r1', 'a1', ccU([ccResult('t1', 'stopped')])),
        /* 4 */ cc('user', 'u2', 'r1', ccU([text('[Request interrupted by user]')])),
      ]);
      expect(shape(r)).toEqual([[null, ['u1', 'a1', 'r1']]]);
      expect(r.conversations[0].turns[0].messages[2].content).toEqual([
        ccResult('t1', 'stopped'),
        text('[Request interrupted by user]'),
      ]);
      expect(turnEnds(r)).toEqual(['r1']);
      expectSound(r);
    });

    it('drops the unanswered call of a partly answered batch (noted) and ends on the answered one', () => {
      const r = load([
        /* 1 */ cc('user', 'u1', null, ccU('both')),
        /* 2 */ cc('assistant', 'a1', 'u1', ccA('m1', [ccCall('t1'), ccCall('t2', 'cat')])),
        /* 3 */ cc('user', 'r1', 'a1', ccU([ccResult('t1')])),
      ]);
      expect(shape(r)).toEqual([[null, ['u1', 'a1', 'r1']]]);
      expect(r.conversations[0].turns[0].messages[1].content).toEqual([ccCall('t1')]);
      expect(reasons(r.report.skipped)).toEqual([
        [2, 'tool_use without its tool_result', 't2 (cat)'],
      ]);
      expect(turnEnds(r)).toEqual(['r1']);
      expectSound(r);
    });

    it('imports a branch left on tool results as a branch; the tip stays where the file ends', () => {
      const r = load([
        /* 1 */ cc('user', 'u0', null, ccU('hi')),
        /* 2 */ cc('assistant', 'a0', 'u0', ccA('m0', [text('hello')])),
        /* 3 */ cc('user', 'u1', 'a0', ccU('try the tool')),
        /* 4 */ cc('assistant', 'a1', 'u1', ccA('m1', [ccCall('t1')])),
        /* 5 */ cc('user', 'r1', 'a1', ccU([ccResult('t1')])),
        // Rewound to a0 and asked something else.
        /* 6 */ cc('user', 'u2', 'a0', ccU('never mind')),
        /* 7 */ cc('assistant', 'a2', 'u2', ccA('m2', [text('ok')])),
      ]);
      expect(shape(r)).toEqual([
        [null, ['u0', 'a0']],
        ['a0', ['u1', 'a1', 'r1']],
        ['a0', ['u2', 'a2']],
      ]);
      expect(r.conversations[0].tip).toBe('a2');
      expect(r.conversations[0].branchPoints).toEqual(['a0']);
      expect(turnEnds(r)).toEqual(['r1']);
      expectSound(r);
    });

    it('a file last written inside that turn (a hook record on the call) resumes at its end', () => {
      const r = load([
        /* 1 */ cc('user', 'u0', null, ccU('hi')),
        /* 2 */ cc('assistant', 'a0', 'u0', ccA('m0', [text('hello')])),
        /* 3 */ cc('user', 'u1', 'a0', ccU('read it')),
        /* 4 */ cc('assistant', 'a1', 'u1', ccA('m1', [ccCall('t1')])),
        /* 5 */ cc('user', 'r1', 'a1', ccU([ccResult('t1', 'text'), text('stop here')])),
        // Claude Code writes a PostToolUse hook's progress on the call, after the result.
        /* 6 */ cc('progress', 'p1', 'a1'),
      ]);
      expect(shape(r)).toEqual([
        [null, ['u0', 'a0']],
        ['a0', ['u1', 'a1', 'r1']],
      ]);
      expect(r.conversations[0].tip).toBe('r1');
      expect(r.conversations[0].activeBranch).toEqual(['u0', 'a0', 'u1', 'a1', 'r1']);
      expectSound(r);
    });
  });

  it('continues the chain through a compact_boundary logicalParentUuid', () => {
    const r = load([
      cc('user', 'u0', null, ccU('task')),
      cc('assistant', 'a0', 'u0', ccA('m0', [text('working')])),
      cc('system', 'cb', null, undefined, {
        subtype: 'compact_boundary',
        logicalParentUuid: 'a0',
        compactMetadata: { trigger: 'auto', preTokens: 1000 },
      }),
      cc('user', 'cs', 'cb', ccU('This session is being continued...'), { isCompactSummary: true }),
      cc('assistant', 'a1', 'cs', ccA('m1', [text('continuing')])),
    ]);
    expect(r.conversations).toHaveLength(1);
    expect(shape(r)).toEqual([
      [null, ['u0', 'a0']],
      ['a0', ['cs', 'a1']],
    ]);
    expect(reasons(r.report.changed)).toEqual([
      [3, 'compact_boundary: the chain continues through logicalParentUuid', 'a0'],
    ]);
    expectSound(r);
  });

  it('treats a compact_boundary whose logical parent is missing as a new root, and says so', () => {
    const r = load([
      cc('user', 'u0', null, ccU('task')),
      cc('assistant', 'a0', 'u0', ccA('m0', [text('working')])),
      cc('system', 'cb', null, undefined, {
        subtype: 'compact_boundary',
        logicalParentUuid: 'gone',
      }),
      cc('user', 'cs', 'cb', ccU('continued')),
      cc('assistant', 'a1', 'cs', ccA('m1', [text('continuing')])),
    ]);
    expect(r.conversations.map((c) => c.kind)).toEqual(['main', 'separate-root']);
    expect(reasons(r.report.changed)).toEqual([
      [3, 'parent not in the file: the record starts a root', 'gone'],
      [4, 'a second root turn imported as its own conversation'],
    ]);
    expectSound(r);
  });

  it('imports sidechain records of a main file as their own conversation', () => {
    const r = load([
      cc('user', 'u0', null, ccU('main task')),
      cc('assistant', 'a0', 'u0', ccA('m0', [ccCall('task', 'Task')])),
      cc('user', 's0', null, ccU('subagent prompt'), { isSidechain: true, agentId: 'abc' }),
      cc('assistant', 's1', 's0', ccA('sm', [text('subagent answer')]), { isSidechain: true }),
      cc('user', 'r0', 'a0', ccU([ccResult('task', 'subagent answer')])),
      cc('assistant', 'a1', 'r0', ccA('m1', [text('main answer')])),
      { type: 'summary', leafUuid: 'a1', summary: 'Main work' },
    ]);
    expect(r.conversations.map((c) => [c.kind, c.title])).toEqual([
      ['main', 'Main work'],
      ['sidechain', 'session (subagent abc)'],
    ]);
    expect(shape(r, 1)).toEqual([[null, ['s0', 's1']]]);
    expect(r.report.changed.map((n) => n.reason)).toContain(
      'sidechain (subagent) records imported as their own conversation',
    );
    expectSound(r);
  });

  it('reads records in any file order, and skips repeated ids and parent loops', () => {
    const r = load([
      /* 1 */ cc('assistant', 'a0', 'u0', ccA('m0', [text('answer')])),
      /* 2 */ cc('user', 'u0', null, ccU('question')),
      /* 3 */ cc('user', 'u0', null, ccU('question again')),
      /* 4 */ cc('user', 'x1', 'x2', ccU('loop 1')),
      /* 5 */ cc('assistant', 'x2', 'x1', ccA('mx', [text('loop 2')])),
    ]);
    expect(shape(r)).toEqual([[null, ['u0', 'a0']]]);
    expect(reasons(r.report.skipped)).toEqual([
      [3, 'repeats the id of an earlier record', 'u0 (line 2)'],
      [4, 'the record is in a parent loop'],
      [5, 'the record is in a parent loop'],
    ]);
  });

  it('keeps unknown blocks as text, and replaces images the domain rejects by a note', () => {
    const r = load([
      cc(
        'user',
        'u0',
        null,
        ccU([
          text('look'),
          {
            type: 'image',
            source: { type: 'base64', media_type: 'image/png', data: 'bm90IGFuIGltYWdl' },
          },
          { type: 'document', source: { type: 'text', data: 'doc' } },
        ]),
      ),
      cc('assistant', 'a0', 'u0', ccA('m0', [ccCall('t1', 'ToolSearch')])),
      cc('user', 'r0', 'a0', ccU([ccResult('t1', [{ type: 'tool_reference', tool_name: 'X' }])])),
      cc(
        'assistant',
        'a1',
        'r0',
        ccA('m1', [text('ok'), { type: 'server_tool_use', id: 's', name: 'web' }]),
      ),
    ]);
    const [prompt, , results, answer] = r.conversations[0].turns[0].messages;
    expect(prompt.content[1]).toEqual({
      type: 'text',
      text: '[image not imported: data is not a PNG, JPEG, GIF or WebP image]',
    });
    expect(prompt.content[2]).toEqual({
      type: 'text',
      text: JSON.stringify({ type: 'document', source: { type: 'text', data: 'doc' } }),
    });
    expect(results.content[0]).toEqual(
      ccResult('t1', [{ type: 'text', text: '{"type":"tool_reference","tool_name":"X"}' }]),
    );
    expect(answer.content[1].type).toBe('text');
    expect(reasons(r.report.changed)).toEqual([
      [1, 'document block kept as text'],
      [1, 'image block replaced by text (unrecognized_image)'],
      [3, 'tool_reference block in a tool result kept as text'],
      [4, 'server_tool_use block kept as text'],
    ]);
    expectSound(r);
  });

  it('skips a turn that cannot be repaired, with its descendants, and says why', () => {
    const r = load([
      cc('user', 'u0', null, ccU('q')),
      cc('assistant', 'a0', 'u0', ccA('m0', [text('a')])),
      // A second assistant message under a final answer that also has a prompt below it.
      cc('assistant', 'a1', 'a0', ccA('m1', [text('another answer')])),
      cc('user', 'u2', 'a0', ccU('q2')),
      cc('assistant', 'a2', 'u2', ccA('m2', [text('a2')])),
      cc('user', 'u3', 'a1', ccU('q3')),
      cc('assistant', 'a3', 'u3', ccA('m3', [text('a3')])),
    ]);
    expect(shape(r)).toEqual([
      [null, ['u0', 'a0']],
      ['a0', ['u2', 'a2']],
    ]);
    expect(reasons(r.report.skipped)).toEqual([
      [3, 'turn skipped: an assistant message follows a final answer with no prompt between'],
      [6, 'turn skipped: it hangs on a turn that was skipped'],
      [7, 'turn skipped: it hangs on a turn that was skipped'],
    ]);
    expectSound(r);
  });

  it('never emits a turn the domain would refuse (turn rules on every output)', () => {
    const r = load([
      cc('user', 'u0', null, ccU([ccResult('nope'), text('q')])),
      cc('assistant', 'a0', 'u0', ccA('m0', [ccCall('t1'), ccCall('t1')])),
      cc('user', 'r0', 'a0', ccU([ccResult('t1'), ccResult('t1')])),
      cc('assistant', 'a1', 'r0', ccA('m1', [text('a')])),
    ]);
    for (const c of r.conversations)
      for (const t of c.turns)
        expect(checkTurn(t.messages, { atRoot: t.parentId === null })).toEqual([]);
  });
});
