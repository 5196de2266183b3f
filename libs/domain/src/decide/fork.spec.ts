import { type ForkCommand } from '../commands';
import { type CompactionDecision } from '../compaction';
import { foldEvents } from '../evolve';
import { type Message } from '../messages';
import { stableId } from '../stable-id';
import { type ConversationState } from '../state';
import {
  assistant,
  counterDeps,
  exec,
  messagesOf,
  newSession,
  ok,
  qa,
  text,
  user,
  type Session,
} from '../testing/session';
import { derivedForkId, forkPathIds } from './fork';
import { decide } from '../conversation';

/** c1 with two turns: [m1 user, m2 assistant], then [x.. user, x.. assistant] chained from m2. */
const source = (): Session => {
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
  ok(s, { type: 'commitTurn', turnId: 't2', parentId: 'm2', messages: qa('q', 'a') });
  return s;
};

const forkOf = (s: Session, extra: Partial<ForkCommand> = {}): ForkCommand => ({
  type: 'fork',
  ...extra,
  path: (forkPathIds(s.state, extra.messageId) ?? []).map(
    (id) => messagesOf(s.log).get(id) as Message,
  ),
});

const decideOn = (state: ConversationState, s: Session, cmd: ForkCommand) => {
  const d = decide(cmd, state, s.deps);
  if (!d.ok) throw new Error(d.error.message);
  return d;
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('stableId', () => {
  it('is a UUID (version 8) that depends only on the name, unambiguously', () => {
    expect(stableId(['a', 'b'])).toMatch(UUID);
    expect(stableId(['a', 'b'])).toBe(stableId(['a', 'b']));
    expect(stableId(['a', 'bc'])).not.toBe(stableId(['ab', 'c']));
    expect(stableId(['a'])).not.toBe(stableId(['a', '']));
  });
});

describe('fork ids are derived, so a retried fork is the same fork', () => {
  it('the same request on the same revision decides byte-identical events', () => {
    const s = source();
    const a = decideOn(s.state, s, forkOf(s, { title: 'f' }));
    const b = decideOn(s.state, s, forkOf(s, { title: 'f' }));
    expect(b).toEqual(a);
    expect(a.result.forkConversationId).toMatch(UUID);
    for (const id of Object.values(a.result.idMap)) expect(id).toMatch(UUID);
    expect(a.result.replayed).toBe(false);
  });

  it('another title, metadata, end message or scope names another fork', () => {
    const s = source();
    const id = (cmd: ForkCommand, state = s.state) =>
      decideOn(state, s, cmd).result.forkConversationId;
    const base = id(forkOf(s, { title: 'f' }));
    expect(id(forkOf(s, { title: 'g' }))).not.toBe(base);
    expect(id(forkOf(s, { title: 'f', metadata: { k: 1 } }))).not.toBe(base);
    expect(id(forkOf(s, { title: 'f', messageId: 'm2' }))).not.toBe(base);
    const scoped = decide(forkOf(s, { title: 'f' }), s.state, {
      ...s.deps,
      stableId: (name) => stableId(['tenant-b', ...name]),
    });
    expect(scoped.ok && scoped.result.forkConversationId).not.toBe(base);
    expect(derivedForkId(s.state, { title: 'f' }, s.state.tip as string)).toBe(base);
  });

  it('once the source records the fork, the same request makes a new fork with new ids', () => {
    const s = source();
    const first = ok(s, forkOf(s, { title: 'f' }));
    const second = ok(s, forkOf(s, { title: 'f' }));
    expect(second.forkConversationId).not.toBe(first.forkConversationId);
    const firstIds = new Set(Object.values(first.idMap));
    for (const id of Object.values(second.idMap)) expect(firstIds.has(id)).toBe(false);
    expect(second.replayed).toBe(false);
  });

  it('a named fork the source already records is replayed: no events, the same answer', () => {
    const s = source();
    const first = ok(s, forkOf(s, { forkConversationId: 'mine', messageId: 'm2' }));
    const revision = s.state.revision;
    const again = exec(s, forkOf(s, { forkConversationId: 'mine', messageId: 'm2' }));
    expect(again).toMatchObject({ ok: true, events: [] });
    if (!again.ok) throw new Error('unreachable');
    expect(again.result).toMatchObject({
      forkConversationId: 'mine',
      idMap: first.idMap,
      forkRevision: first.forkRevision,
      revision,
      replayed: true,
    });
    expect(again.result.forkEvents).toEqual(first.forkEvents);
  });

  it('a named fork id already used for another message is conversation_exists', () => {
    const s = source();
    ok(s, forkOf(s, { forkConversationId: 'mine', messageId: 'm2' }));
    const d = exec(s, forkOf(s, { forkConversationId: 'mine' }));
    expect(d).toMatchObject({ ok: false, error: { code: 'conversation_exists' } });
  });
});

describe('compactions on the copied path', () => {
  const onPath: CompactionDecision = {
    id: 'd1',
    rung: 'elide',
    trigger: 'threshold',
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    tokensBefore: 100,
    tokensAfter: 50,
    cachedPrefixChanged: false,
    placeholders: 2,
    results: [
      { messageId: 'm2', toolUseId: 'tu1', originalTokens: 50 },
      { messageId: 'elsewhere', toolUseId: 'tu2', originalTokens: 70 },
    ],
  };
  const range = (id: string, coveredIds: string[]): CompactionDecision => ({
    ...onPath,
    id,
    rung: 'drop',
    fromId: coveredIds[0],
    toId: coveredIds[coveredIds.length - 1],
    coveredIds,
    droppedTokens: 10,
  });

  it('carries the decisions in force over, remapped to the fork ids; drops the rest explicitly', () => {
    const s = source();
    const elsewhere: CompactionDecision = { ...onPath, id: 'd2', results: [] };
    const state = foldEvents(
      [
        { type: 'CompactionApplied', data: { decision: onPath } },
        { type: 'CompactionApplied', data: { decision: elsewhere } },
        { type: 'CompactionApplied', data: { decision: range('d3', ['m1', 'm2']) } },
        { type: 'CompactionApplied', data: { decision: range('d4', ['m2', 'beyond']) } },
        { type: 'CompactionApplied', data: { decision: range('d5', ['m1']) } },
        { type: 'CompactionRevoked', data: { decisionId: 'd5', reason: null } },
      ],
      s.state,
    );
    const d = decideOn(state, s, forkOf(s));
    if (!d.ok) throw new Error('fork failed');
    const { forkEvents, idMap } = d.result;
    const forkedFrom = forkEvents.find((e) => e.type === 'ForkedFrom');
    expect(forkedFrom?.data).toMatchObject({
      droppedCompactions: [
        { id: 'd4', rung: 'drop' },
        { id: 'd5', rung: 'drop' },
      ],
      carriedCompactions: [
        { sourceId: 'd1', id: expect.any(String), rung: 'elide' },
        { sourceId: 'd3', id: expect.any(String), rung: 'drop' },
      ],
    });
    const applied = forkEvents.flatMap((e) =>
      e.type === 'CompactionApplied' ? [e.data.decision] : [],
    );
    expect(applied).toEqual([
      {
        ...onPath,
        id: expect.not.stringMatching(/^d1$/),
        results: [{ messageId: idMap.m2, toolUseId: 'tu1', originalTokens: 50 }],
      },
      {
        ...range('d3', [idMap.m1, idMap.m2]),
        id: expect.not.stringMatching(/^d3$/),
      },
    ]);
    // After the copied messages (they must exist when the decision is folded), before the tip.
    const types = forkEvents.map((e) => e.type);
    expect(types.lastIndexOf('MessageAppended')).toBeLessThan(types.indexOf('CompactionApplied'));
    expect(types[types.length - 1]).toBe('TipMoved');
    // Derived ids: the same fork decided again carries the same decisions.
    const again = decideOn(state, s, forkOf(s));
    if (!again.ok) throw new Error('fork failed');
    expect(again.result.forkEvents).toEqual(forkEvents);
  });
});
