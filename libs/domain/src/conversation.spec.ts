import { type Command, type ForkCommand } from './commands';
import { decide } from './conversation';
import { type DomainErrorCode } from './errors';
import { foldEvents } from './evolve';
import { type Message } from './messages';
import {
  getCheckpoint,
  getNode,
  initialState,
  listCheckpoints,
  messageCount,
  pendingRetry,
} from './state';
import { activeBranch, branchPath } from './tree';
import { queryRetry } from './decide/record-failure';
import { forkPathIds } from './decide/fork';
import {
  assistant,
  counterDeps,
  exec,
  messagesOf,
  newSession,
  ok,
  qa,
  text,
  toolResult,
  toolTurn,
  toolUse,
  user,
  type Session,
} from './testing/session';

const errorCode = (s: Session, command: Command): DomainErrorCode => {
  const d = exec(s, command);
  if (d.ok) throw new Error(`expected ${command.type} to fail`);
  return d.error.code;
};

/** A started conversation with one turn t1 = [m1 user, m2 assistant]. */
const started = (): Session => {
  const s = newSession(counterDeps('x'));
  ok(s, { type: 'start', conversationId: 'c1', title: 'T' });
  ok(s, {
    type: 'commitTurn',
    turnId: 't1',
    parentId: null,
    messages: [
      { id: 'm1', ...user(text('hi')) },
      { id: 'm2', ...assistant(text('hello')) },
    ],
  });
  return s;
};

const forkCommand = (s: Session, messageId?: string): ForkCommand => ({
  type: 'fork',
  messageId,
  path: (forkPathIds(s.state, messageId) ?? []).map((id) => messagesOf(s.log).get(id) as Message),
});

describe('start', () => {
  it('starts once', () => {
    const s = newSession();
    const r = ok(s, { type: 'start', conversationId: 'c1', title: 'T', metadata: { a: 1 } });
    expect(r).toEqual({ conversationId: 'c1', tip: null, revision: 0 });
    expect(s.log).toEqual([
      {
        type: 'ConversationStarted',
        data: { conversationId: 'c1', title: 'T', metadata: { a: 1 }, forkedFrom: null },
      },
    ]);
    expect(errorCode(s, { type: 'start' })).toBe('conversation_exists');
    expect(errorCode(newSession(), { type: 'start', conversationId: 'a.b' })).toBe(
      'invalid_command',
    );
  });

  it('answers conversation_not_found for every other command before it', () => {
    const commands: Command[] = [
      { type: 'commitTurn', parentId: null, messages: qa('a', 'b') },
      { type: 'moveTip', messageId: 'm' },
      { type: 'fork', path: [] },
      { type: 'setCheckpoint', label: 'l' },
      { type: 'rewind', label: 'l' },
      { type: 'resume', keepMessages: 1 },
      { type: 'recordFailure', input: {}, error: {} },
    ];
    for (const c of commands)
      expect(decide(c, initialState(), counterDeps())).toMatchObject({
        ok: false,
        error: { code: 'conversation_not_found' },
      });
  });
});

describe('commitTurn', () => {
  it('appends every message then one TurnCommitted, chained from the parent', () => {
    const s = started();
    expect(s.log.map((e) => e.type)).toEqual([
      'ConversationStarted',
      'MessageAppended',
      'MessageAppended',
      'TurnCommitted',
    ]);
    const [m1, m2] = [...messagesOf(s.log).values()];
    expect(m1).toEqual({
      id: 'm1',
      parentId: null,
      role: 'user',
      content: [text('hi')],
      turnId: 't1',
      createdAt: '2025-01-01T00:00:00.000Z',
    });
    expect(m2.parentId).toBe('m1');
    expect(s.log[3]).toMatchObject({
      type: 'TurnCommitted',
      data: { turnId: 't1', parentId: null, messageIds: ['m1', 'm2'], tipBefore: null, tip: 'm2' },
    });
    expect(s.state.tip).toBe('m2');
    expect(s.state.revision).toBe(3);
  });

  it('generates missing ids and returns the predicted revision', () => {
    const s = started();
    const r = ok(s, { type: 'commitTurn', parentId: 'm2', messages: toolTurn('go', 'tu1') });
    expect(r).toEqual({
      turnId: 'x1',
      messageIds: ['x2', 'x3', 'x4', 'x5'],
      tip: 'x5',
      revision: 8,
      replayed: false,
    });
    expect(s.state.revision).toBe(8);
    expect(getNode(s.state, 'x3')).toMatchObject({ boundary: false, toolUseIds: ['tu1'] });
    expect(getNode(s.state, 'x4')).toMatchObject({ boundary: false, toolResultIds: ['tu1'] });
    expect(getNode(s.state, 'x5')).toMatchObject({ boundary: true });
  });

  it('branches when chained from an earlier turn end, keeping the old path', () => {
    const s = started();
    ok(s, { type: 'commitTurn', turnId: 't2', parentId: 'm2', messages: qa('q2', 'a2') });
    ok(s, { type: 'commitTurn', turnId: 't3', parentId: 'm2', messages: qa('q2 edited', 'a3') });
    expect(messageCount(s.state)).toBe(6);
    expect(activeBranch(s.state)).toEqual(['m1', 'm2', 'x3', 'x4']);
  });

  it('allows the root system message as a parent, so the first prompt can be edited', () => {
    const s = newSession();
    ok(s, { type: 'start', conversationId: 'c' });
    ok(s, {
      type: 'commitTurn',
      parentId: null,
      messages: [{ id: 'sys', role: 'system', content: [text('rules')] }, ...qa('a', 'b')],
    });
    expect(exec(s, { type: 'commitTurn', parentId: 'sys', messages: qa('a2', 'b2') }).ok).toBe(
      true,
    );
  });

  it('rejects a second root, an unknown parent and a parent inside a turn', () => {
    const s = started();
    const d = exec(s, { type: 'commitTurn', parentId: null, messages: qa('a', 'b') });
    expect(d).toMatchObject({
      ok: false,
      error: {
        code: 'invalid_turn',
        details: { violations: [{ path: 'parentId', code: 'root_exists' }] },
      },
    });
    expect(errorCode(s, { type: 'commitTurn', parentId: 'nope', messages: qa('a', 'b') })).toBe(
      'parent_not_found',
    );
    expect(errorCode(s, { type: 'commitTurn', parentId: 'm1', messages: qa('a', 'b') })).toBe(
      'not_a_turn_boundary',
    );
    ok(s, { type: 'commitTurn', parentId: 'm2', messages: toolTurn('q', 'tu') });
    // x3 is the assistant message calling the tool: mid-turn.
    expect(errorCode(s, { type: 'commitTurn', parentId: 'x3', messages: qa('a', 'b') })).toBe(
      'not_a_turn_boundary',
    );
  });

  it('refuses a stale expected tip, and accepts the right one', () => {
    const s = started();
    expect(
      errorCode(s, {
        type: 'commitTurn',
        parentId: 'm2',
        expectedTip: 'm1',
        messages: qa('a', 'b'),
      }),
    ).toBe('stale_tip');
    expect(
      errorCode(s, {
        type: 'commitTurn',
        parentId: 'm2',
        expectedTip: null,
        messages: qa('a', 'b'),
      }),
    ).toBe('stale_tip');
    expect(
      exec(s, { type: 'commitTurn', parentId: 'm2', expectedTip: 'm2', messages: qa('a', 'b') }).ok,
    ).toBe(true);
    const fresh = newSession();
    ok(fresh, { type: 'start' });
    expect(
      exec(fresh, { type: 'commitTurn', parentId: null, expectedTip: null, messages: qa('a', 'b') })
        .ok,
    ).toBe(true);
  });

  it('returns every turn-rule violation as invalid_turn, appending nothing', () => {
    const s = started();
    const before = s.log.length;
    const d = exec(s, {
      type: 'commitTurn',
      parentId: 'm2',
      messages: [user(toolResult('ghost')), assistant(toolUse('open'))],
    });
    expect(d.ok).toBe(false);
    if (!d.ok) {
      expect(d.error.code).toBe('invalid_turn');
      const violations = (d.error.details?.violations ?? []) as { code: string }[];
      expect(violations.map((v) => v.code).sort()).toEqual([
        'orphan_tool_result',
        'unanswered_tool_use',
      ]);
    }
    expect(s.log.length).toBe(before);
  });

  it('rejects a message id already in the conversation', () => {
    const s = started();
    const d = exec(s, {
      type: 'commitTurn',
      parentId: 'm2',
      messages: [{ id: 'm1', ...user(text('again')) }, assistant(text('x'))],
    });
    expect(d).toMatchObject({
      ok: false,
      error: {
        details: { violations: [{ code: 'duplicate_message_id', path: 'messages[0].id' }] },
      },
    });
  });

  it('is idempotent per turnId: same content → original result and no events, even after replay', () => {
    const s = started();
    const cmd: Command = {
      type: 'commitTurn',
      turnId: 't2',
      parentId: 'm2',
      expectedTip: 'm2',
      messages: qa('a', 'b'),
    };
    const first = ok(s, cmd);
    ok(s, { type: 'moveTip', messageId: 'm1' });
    const again = decide(cmd, s.state, s.deps);
    expect(again).toEqual({ ok: true, events: [], result: { ...first, replayed: true } });
    const replayed = foldEvents(s.log);
    expect(decide(cmd, replayed, s.deps)).toEqual(again);
    const other: Command = { ...cmd, messages: qa('a', 'different') };
    expect(decide(other, replayed, s.deps)).toMatchObject({
      ok: false,
      error: { code: 'turn_id_conflict' },
    });
    const otherParent: Command = { ...cmd, parentId: 'm2x' };
    expect(decide(otherParent, replayed, s.deps)).toMatchObject({
      ok: false,
      error: { code: 'turn_id_conflict' },
    });
  });

  it('rejects a malformed turnId', () => {
    expect(
      errorCode(started(), {
        type: 'commitTurn',
        turnId: 'a b',
        parentId: 'm2',
        messages: qa('a', 'b'),
      }),
    ).toBe('invalid_command');
  });
});

describe('turns that end on answered tool results', () => {
  /** t1 = [m1, m2]; t2 = [q user, c assistant calls x and y, r user answers both]. */
  const paused = (): Session => {
    const s = started();
    ok(s, {
      type: 'commitTurn',
      turnId: 't2',
      parentId: 'm2',
      messages: [
        { id: 'q', ...user(text('go')) },
        { id: 'c', ...assistant(toolUse('x'), toolUse('y')) },
        { id: 'r', ...user(toolResult('x'), toolResult('y')) },
      ],
    });
    return s;
  };

  it('commit, mark the tool results as the turn end, and say so in the MessageAppended', () => {
    const s = paused();
    expect(s.state.tip).toBe('r');
    expect(getNode(s.state, 'r')?.boundary).toBe(true);
    expect(getNode(s.state, 'c')?.boundary).toBe(false);
    const appended = s.log.filter((e) => e.type === 'MessageAppended').slice(-3);
    expect(appended.map((e) => (e.data as { turnEnd?: true }).turnEnd)).toEqual([
      undefined,
      undefined,
      true,
    ]);
    // Replay folds the same turn end.
    expect(getNode(foldEvents(s.log), 'r')?.boundary).toBe(true);
  });

  it('still refuse a call left unanswered', () => {
    const s = started();
    const d = exec(s, {
      type: 'commitTurn',
      parentId: 'm2',
      messages: [user(text('go')), assistant(toolUse('x'), toolUse('y')), user(toolResult('x'))],
    });
    expect(d).toMatchObject({
      ok: false,
      error: {
        code: 'invalid_turn',
        details: { violations: [{ code: 'unanswered_tool_use', path: 'messages[1].content[1]' }] },
      },
    });
  });

  it('the next turn is the assistant continuing; a new prompt there is refused', () => {
    const s = paused();
    expect(errorCode(s, { type: 'commitTurn', parentId: 'r', messages: qa('again', 'no') })).toBe(
      'invalid_turn',
    );
    const r = ok(s, {
      type: 'commitTurn',
      parentId: 'r',
      messages: [{ id: 'd', ...assistant(text('both done')) }],
    });
    expect(r.tip).toBe('d');
    expect(activeBranch(s.state)).toEqual(['m1', 'm2', 'q', 'c', 'r', 'd']);
    // A prompt chains from the answer as always; the tool results stay a branch point.
    ok(s, { type: 'commitTurn', parentId: 'd', messages: qa('next', 'ok') });
    ok(s, { type: 'commitTurn', parentId: 'r', messages: [assistant(text('other answer'))] });
  });

  it('a checkpoint and a fork may end there; the fork keeps it a turn end', () => {
    const s = paused();
    ok(s, { type: 'setCheckpoint', label: 'paused' });
    expect(getCheckpoint(s.state, 'paused')?.messageId).toBe('r');
    const f = ok(s, forkCommand(s, 'r'));
    const fork = foldEvents(f.forkEvents);
    const copy = f.idMap.r;
    expect(fork.tip).toBe(copy);
    expect(getNode(fork, copy)?.boundary).toBe(true);
  });
});

describe('moveTip', () => {
  it('appends exactly one TipMoved, to any message, and changes nothing else', () => {
    const s = started();
    const messagesBefore = s.state.messages;
    const d = exec(s, { type: 'moveTip', messageId: 'm1', expectedTip: 'm2' });
    expect(d).toEqual({
      ok: true,
      events: [{ type: 'TipMoved', data: { from: 'm2', to: 'm1', reason: 'branch' } }],
      result: { tip: 'm1', revision: 4 },
    });
    expect(s.state.messages).toBe(messagesBefore);
    expect(s.state.tip).toBe('m1');
  });

  it('moves to none: an empty branch, the old path kept, the next turn a new root', () => {
    const s = started();
    const messagesBefore = s.state.messages;
    const d = exec(s, { type: 'moveTip', messageId: null, expectedTip: 'm2' });
    expect(d).toEqual({
      ok: true,
      events: [{ type: 'TipMoved', data: { from: 'm2', to: null, reason: 'branch' } }],
      result: { tip: null, revision: 4 },
    });
    expect(s.state.messages).toBe(messagesBefore);
    expect(activeBranch(s.state)).toEqual([]);
    // Again: nothing to record.
    expect(exec(s, { type: 'moveTip', messageId: null })).toMatchObject({ ok: true, events: [] });
    // Nothing to resume from on an empty branch.
    expect(errorCode(s, { type: 'resume', keepMessages: 2 })).toBe('invalid_resume');
    // A new root, with a system message even; the old path is still there to move back to.
    const r = ok(s, {
      type: 'commitTurn',
      parentId: null,
      expectedTip: null,
      messages: [{ role: 'system', content: [text('be brief')] }, ...qa('again', 'yes')],
    });
    expect(branchPath(s.state, r.tip)).toEqual(r.messageIds);
    expect(branchPath(s.state, 'm2')).toEqual(['m1', 'm2']);
    // With a tip, a second root is refused as before.
    expect(errorCode(s, { type: 'commitTurn', parentId: null, messages: qa('a', 'b') })).toBe(
      'invalid_turn',
    );
    ok(s, { type: 'moveTip', messageId: 'm2' });
    expect(activeBranch(s.state)).toEqual(['m1', 'm2']);
    expect(activeBranch(foldEvents(s.log))).toEqual(['m1', 'm2']);
  });

  it('fails on an unknown message or a stale tip', () => {
    const s = started();
    expect(errorCode(s, { type: 'moveTip', messageId: 'zz' })).toBe('message_not_found');
    expect(errorCode(s, { type: 'moveTip', messageId: 'm1', expectedTip: 'm1' })).toBe('stale_tip');
  });
});

describe('fork', () => {
  const forked = () => {
    const s = started();
    ok(s, { type: 'commitTurn', parentId: 'm2', messages: toolTurn('go', 'tu1') }); // x2..x5
    ok(s, { type: 'setCheckpoint', label: 'on-path', messageId: 'm2' });
    ok(s, { type: 'commitTurn', parentId: 'm2', messages: qa('other', 'branch') }); // x7, x8
    ok(s, { type: 'setCheckpoint', label: 'off-path' });
    ok(s, { type: 'moveTip', messageId: 'x5' });
    return s;
  };

  it('emits ConversationForked on the source and a self-contained opening for the fork', () => {
    const s = forked();
    const d = exec(s, forkCommand(s));
    if (!d.ok) throw new Error(d.error.message);
    const { forkConversationId, idMap, forkEvents, forkRevision } = d.result;
    expect(d.events).toEqual([
      { type: 'ConversationForked', data: { forkConversationId, fromMessageId: 'x5', idMap } },
    ]);
    expect(Object.keys(idMap)).toEqual(['m1', 'm2', 'x2', 'x3', 'x4', 'x5']);
    const newIds = Object.values(idMap);
    expect(new Set(newIds).size).toBe(6);
    for (const id of newIds) expect(getNode(s.state, id)).toBeUndefined();
    expect(forkEvents.map((e) => e.type)).toEqual([
      'ConversationStarted',
      'ForkedFrom',
      ...Array(6).fill('MessageAppended'),
      'CheckpointSet',
      'TipMoved',
    ]);
    expect(forkEvents[0]).toMatchObject({
      data: {
        conversationId: forkConversationId,
        title: 'T',
        forkedFrom: { conversationId: 'c1', messageId: 'x5' },
      },
    });
    expect(forkEvents[8]).toEqual({
      type: 'CheckpointSet',
      data: { label: 'on-path', messageId: idMap.m2 },
    });
    expect(forkEvents[9]).toEqual({
      type: 'TipMoved',
      data: { from: null, to: idMap.x5, reason: 'fork' },
    });
    const fork = foldEvents(forkEvents);
    expect(fork.revision).toBe(forkRevision);
    expect(fork.tip).toBe(idMap.x5);
    expect(branchPath(fork, idMap.x5)).toEqual(
      ['m1', 'm2', 'x2', 'x3', 'x4', 'x5'].map((id) => idMap[id]),
    );
    expect(listCheckpoints(fork).map((c) => c.label)).toEqual(['on-path']);
    const copies = [...messagesOf(forkEvents).values()];
    const originals = messagesOf(s.log);
    for (const copy of copies) {
      const original = originals.get(
        Object.keys(idMap).find((k) => idMap[k] === copy.id) as string,
      ) as Message;
      expect({ ...copy, id: original.id, parentId: original.parentId }).toEqual(original);
    }
  });

  it('needs a turn end, an existing message and the exact path', () => {
    const s = forked();
    expect(errorCode(s, forkCommand(s, 'x3'))).toBe('not_a_turn_boundary');
    expect(errorCode(s, { type: 'fork', messageId: 'zz', path: [] })).toBe('message_not_found');
    const cmd = forkCommand(s, 'x5');
    expect(errorCode(s, { ...cmd, path: cmd.path.slice(1) })).toBe('invalid_command');
    expect(errorCode(s, { ...cmd, forkConversationId: 'c1' })).toBe('invalid_command');
    const empty = newSession();
    ok(empty, { type: 'start' });
    expect(errorCode(empty, { type: 'fork', path: [] })).toBe('message_not_found');
  });
});

describe('checkpoints', () => {
  it('set at the tip by default, only at a turn end, only at a known message', () => {
    const s = started();
    expect(ok(s, { type: 'setCheckpoint', label: 'a' })).toEqual({
      label: 'a',
      messageId: 'm2',
      revision: 4,
      replayed: false,
    });
    expect(errorCode(s, { type: 'setCheckpoint', label: 'b', messageId: 'm1' })).toBe(
      'not_a_turn_boundary',
    );
    expect(errorCode(s, { type: 'setCheckpoint', label: 'b', messageId: 'zz' })).toBe(
      'message_not_found',
    );
    for (const label of ['', ' ', 'a/b', 'x'.repeat(129), 'a\nb']) {
      expect(errorCode(s, { type: 'setCheckpoint', label })).toBe('invalid_command');
    }
  });

  it('keeps labels unique: same target is a no-op, another needs replace', () => {
    const s = started();
    ok(s, { type: 'setCheckpoint', label: 'a' });
    ok(s, { type: 'commitTurn', parentId: 'm2', messages: qa('q', 'r') });
    expect(
      decide({ type: 'setCheckpoint', label: 'a', messageId: 'm2' }, s.state, s.deps),
    ).toMatchObject({
      ok: true,
      events: [],
      result: { replayed: true },
    });
    expect(errorCode(s, { type: 'setCheckpoint', label: 'a' })).toBe('checkpoint_exists');
    ok(s, { type: 'setCheckpoint', label: 'a', replace: true });
    expect(getCheckpoint(s.state, 'a')).toEqual({ label: 'a', messageId: 'x3', status: 'active' });
  });

  it('rewinds exactly to the target with a digest, or fails clearly', () => {
    const s = started();
    ok(s, { type: 'setCheckpoint', label: 'a' });
    ok(s, { type: 'commitTurn', parentId: 'm2', messages: qa('q', 'r') });
    const d = exec(s, { type: 'rewind', label: 'a', digest: 'tried X' });
    expect(d).toMatchObject({
      ok: true,
      events: [
        {
          type: 'CheckpointRewound',
          data: { label: 'a', messageId: 'm2', from: 'x3', digest: 'tried X' },
        },
        { type: 'TipMoved', data: { from: 'x3', to: 'm2', reason: 'rewind' } },
      ],
      result: { tip: 'm2' },
    });
    expect(s.state.tip).toBe('m2');
    expect(getCheckpoint(s.state, 'a')?.status).toBe('rewound');
    expect(exec(s, { type: 'rewind', label: 'a' }).ok).toBe(true);
    expect(errorCode(s, { type: 'rewind', label: 'nope' })).toBe('checkpoint_not_found');
    expect(errorCode(s, { type: 'rewind', label: 'a', expectedTip: 'x3' })).toBe('stale_tip');
  });
});

describe('resume', () => {
  const long = (): Session => {
    const s = started(); // m1 m2
    ok(s, { type: 'setCheckpoint', label: 'early' });
    ok(s, { type: 'commitTurn', parentId: 'm2', messages: toolTurn('q2', 'tu1') }); // x2..x5
    ok(s, { type: 'setCheckpoint', label: 'late' });
    ok(s, { type: 'commitTurn', parentId: 'x5', messages: qa('q3', 'a3') }); // x7 x8
    return s;
  };

  it('validates its limits', () => {
    const s = long();
    for (const c of [{}, { keepMessages: 0 }, { keepTokens: -1 }, { keepMessages: 1.5 }]) {
      expect(errorCode(s, { type: 'resume', ...c })).toBe('invalid_resume');
    }
    const empty = newSession();
    ok(empty, { type: 'start' });
    expect(errorCode(empty, { type: 'resume', keepMessages: 3 })).toBe('invalid_resume');
  });

  it('cuts at a turn start and drops the checkpoints it trims, before RunResumed', () => {
    const s = long();
    // 3 messages would start at x5 (an assistant answer): move back to x2, the turn start.
    const d = exec(s, { type: 'resume', keepMessages: 4 });
    expect(d).toMatchObject({
      ok: true,
      events: [
        {
          type: 'CheckpointDropped',
          data: { label: 'early', messageId: 'm2', reason: 'trimmed_by_resume' },
        },
        {
          type: 'RunResumed',
          data: {
            cutAt: 'x2',
            tip: 'x8',
            keptCount: 6,
            droppedCheckpoints: ['early'],
            keptWholeLastTurn: false,
          },
        },
      ],
      result: { cutAt: 'x2', droppedCheckpoints: ['early'], keptCount: 6 },
    });
    expect(errorCode(s, { type: 'rewind', label: 'early' })).toBe('checkpoint_dropped');
    expect(exec(s, { type: 'rewind', label: 'late' }).ok).toBe(true);
    // A dropped label may be set again.
    expect(exec(s, { type: 'setCheckpoint', label: 'early' }).ok).toBe(true);
  });

  it('keeps the whole last turn when nothing fits, and says so', () => {
    const s = long();
    const r = ok(s, { type: 'resume', keepTokens: 1 });
    expect(r).toMatchObject({ cutAt: 'x7', keptCount: 2, keptWholeLastTurn: true });
    expect(r.droppedCheckpoints).toEqual(['early', 'late']);
  });
});

describe('failures and retry', () => {
  it('tells nothing_to_retry from conversation_not_found, and clears on the next commit', () => {
    expect(queryRetry(initialState())).toMatchObject({
      ok: false,
      error: { code: 'conversation_not_found' },
    });
    const s = started();
    expect(queryRetry(s.state)).toMatchObject({ ok: false, error: { code: 'nothing_to_retry' } });
    const r = ok(s, { type: 'recordFailure', input: { messages: [] }, error: { message: 'boom' } });
    expect(r.failureId).toBe('x1');
    expect(pendingRetry(s.state)).toEqual({
      failureId: 'x1',
      input: { messages: [] },
      error: { message: 'boom' },
    });
    expect(pendingRetry(foldEvents(s.log))).toEqual(pendingRetry(s.state));
    ok(s, { type: 'moveTip', messageId: 'm1' });
    expect(pendingRetry(s.state)).not.toBeNull();
    ok(s, { type: 'commitTurn', parentId: 'm2', messages: qa('retry', 'worked') });
    expect(pendingRetry(s.state)).toBeNull();
    expect(queryRetry(s.state)).toMatchObject({ ok: false, error: { code: 'nothing_to_retry' } });
  });

  it('rejects a malformed failureId', () => {
    expect(errorCode(started(), { type: 'recordFailure', failureId: '', input: 1, error: 2 })).toBe(
      'invalid_command',
    );
  });
});

describe('evolve', () => {
  it('passes over unknown event types, counting the revision', () => {
    const s = started();
    const next = foldEvents([{ type: 'CompactionApplied', data: { anything: 1 } }], s.state);
    expect(next.revision).toBe(s.state.revision + 1);
    expect({ ...next, revision: 0 }).toEqual({ ...s.state, revision: 0 });
  });
});

describe('erase', () => {
  it('appends one ConversationErased that evolve folds to an erased state without content', () => {
    const s = started();
    ok(s, { type: 'recordFailure', input: { secret: 1 }, error: {} });
    const r = ok(s, { type: 'erase', reason: 'gdpr', erasedAt: '2026-01-01T00:00:00.000Z' });
    expect(r).toEqual({
      conversationId: 'c1',
      erasedAt: '2026-01-01T00:00:00.000Z',
      reason: 'gdpr',
      revision: 5,
    });
    expect(s.log[s.log.length - 1]).toEqual({
      type: 'ConversationErased',
      data: { conversationId: 'c1', reason: 'gdpr', erasedAt: '2026-01-01T00:00:00.000Z' },
    });
    expect(s.state).toMatchObject({
      status: 'erased',
      revision: 5,
      title: null,
      lastFailure: null,
    });
    expect(foldEvents(s.log)).toEqual(s.state);
  });

  it('refuses every command once erased, erase included; an unknown conversation is not found', () => {
    const s = started();
    ok(s, { type: 'erase', reason: 'r' });
    const commands: Command[] = [
      { type: 'erase', reason: 'again' },
      { type: 'start' },
      { type: 'commitTurn', parentId: 'm2', messages: qa('a', 'b') },
      { type: 'moveTip', messageId: 'm1' },
      { type: 'recordFailure', input: {}, error: {} },
    ];
    for (const c of commands) expect(errorCode(s, c)).toBe('conversation_erased');
    expect(errorCode(newSession(), { type: 'erase', reason: 'r' })).toBe('conversation_not_found');
  });
});
