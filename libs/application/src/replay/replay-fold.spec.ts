import { type ConversationEvent, foldEvents } from '@arbor/domain';
import { counterDeps, newSession, ok, qa, toolTurn } from '@arbor/domain/testing/session';
import { conversationStream, type RecordedEvent } from '@arbor/event-store';
import { conversationsProjection } from '@arbor/projections';
import { createReplayFold, mergeByPosition } from './replay-fold';
import { compactionsFor, replayAnswer, windowCut } from './replay-view';

const PROJECTIONS = [conversationsProjection];

/** A scripted conversation's log as recorded events (positions spaced so others fit between). */
const script = () => {
  const s = newSession(counterDeps('m'));
  ok(s, { type: 'start', conversationId: 'c1', title: 'replay' });
  const t1 = ok(s, { type: 'commitTurn', parentId: null, messages: toolTurn('one', 'tu1') });
  const t2 = ok(s, { type: 'commitTurn', parentId: t1.tip, messages: qa('two', 'ok') });
  ok(s, { type: 'setCheckpoint', label: 'cp', messageId: t1.tip });
  const t3 = ok(s, { type: 'commitTurn', parentId: t1.tip, messages: qa('two edited', 'ok') });
  ok(s, { type: 'moveTip', messageId: t2.tip });
  ok(s, { type: 'recordFailure', input: 'x', error: 'boom' });
  ok(s, { type: 'rewind', label: 'cp', digest: 'd' });
  ok(s, { type: 'commitTurn', parentId: t3.tip, messages: qa('three', 'ok') });
  ok(s, { type: 'resume', keepMessages: 2 });
  return { log: s.log, state: s.state };
};

const recorded = (
  log: readonly ConversationEvent[],
  stream = conversationStream('t1', 'c1'),
): RecordedEvent[] =>
  log.map((e, i) => ({
    id: `${stream}#${i}`,
    streamName: stream,
    revision: BigInt(i),
    position: BigInt(10 * (i + 1)),
    type: e.type,
    data: e.data,
    metadata: {
      tenantId: 't1',
      actor: 'test',
      timestamp: `2025-01-01T00:00:${String(i).padStart(2, '0')}Z`,
    },
    created: new Date(0),
  }));

describe('mergeByPosition', () => {
  const ev = (id: string, position: number) =>
    ({ id, position: BigInt(position) }) as unknown as RecordedEvent;

  it('puts each foreign event before the first own event recorded after it', () => {
    const { merged, rest } = mergeByPosition(
      [ev('a', 10), ev('b', 20), ev('c', 30)],
      [ev('y', 25), ev('x', 5), ev('z', 35)],
    );
    expect(merged.map((e) => e.id)).toEqual(['x', 'a', 'b', 'y', 'c']);
    expect(rest.map((e) => e.id)).toEqual(['z']);
  });
});

describe('createReplayFold', () => {
  it('folds to the same read models and state whatever the batch boundaries', () => {
    const { log, state } = script();
    const events = recorded(log);
    const whole = createReplayFold(PROJECTIONS);
    const oneByOne = createReplayFold(PROJECTIONS);
    whole.apply(events);
    for (const e of events) oneByOne.apply([e]);
    try {
      expect(whole.dump()).toBe(oneByOne.dump());
      expect(whole.dump()).toContain('rm_checkpoints');
      expect(JSON.stringify(whole.state())).toBe(JSON.stringify(foldEvents(log)));
      expect(whole.state().tip).toBe(state.tip);
      expect(whole.last()?.revision).toBe(BigInt(log.length - 1));
      const a = whole.queries.getConversation('t1', 'c1');
      expect(a).toEqual(oneByOne.queries.getConversation('t1', 'c1'));
      expect(whole.queries.tree('t1', 'c1')).toEqual(oneByOne.queries.tree('t1', 'c1'));
    } finally {
      whole.close();
      oneByOne.close();
    }
  });

  it('lists a fork only once its ConversationStarted is older than the replayed event', () => {
    const { log } = script();
    const events = recorded(log.slice(0, 4));
    const forkStart: RecordedEvent = {
      ...recorded(
        [
          {
            type: 'ConversationStarted',
            data: {
              conversationId: 'f1',
              title: null,
              metadata: {},
              forkedFrom: { conversationId: 'c1', messageId: 'x' },
            },
          } as ConversationEvent,
        ],
        conversationStream('t1', 'f1'),
      )[0],
      position: 25n,
    };
    const before = createReplayFold(PROJECTIONS);
    const after = createReplayFold(PROJECTIONS);
    try {
      before.addForeign([forkStart]);
      before.apply(events.slice(0, 2)); // positions 10, 20
      after.addForeign([forkStart]);
      after.apply(events.slice(0, 3)); // ... 30
      after.addForeign([forkStart]); // already applied: never twice
      after.apply(events.slice(3, 4));
      expect(before.queries.getConversation('t1', 'c1')?.forks).toEqual([]);
      expect(after.queries.getConversation('t1', 'c1')?.forks).toEqual([
        { conversationId: 'f1', messageId: 'x' },
      ]);
      // A foreign event never counts as the conversation's own.
      expect(after.last()?.revision).toBe(3n);
      expect(after.state().revision).toBe(3);
    } finally {
      before.close();
      after.close();
    }
  });
});

describe('replayAnswer', () => {
  it('answers every part from the fold, with the live window after a resume', async () => {
    const { log, state } = script();
    const fold = createReplayFold(PROJECTIONS);
    try {
      fold.apply(recorded(log));
      const last = log.length - 1;
      const a = await replayAnswer({
        tenantId: 't1',
        conversationId: 'c1',
        event: { revision: last, type: 'RunResumed', timestamp: 't' },
        queries: fold.queries,
        state: fold.state(),
        page: { fromDepth: 0, limit: 2 },
        lastContext: null,
      });
      expect(a.tip).toBe(state.tip);
      expect(a.conversation.revision).toBe(last);
      expect(a.branch.items).toHaveLength(2);
      expect(a.branch.nextDepth).toBe(2);
      expect(a.branch.length).toBeGreaterThan(2);
      expect(a.window).toEqual({ cutAt: state.resume?.cutAt, tip: state.tip, messages: 2 });
      expect(a.checkpoints.map((c) => [c.label, c.status])).toEqual([['cp', 'dropped']]);
      expect(a.pendingFailure).toBeNull();
      expect(a.tree.tip).toBe(state.tip);
      expect(a.tree.branchPoints.length).toBeGreaterThan(0);
    } finally {
      fold.close();
    }
  });
});

describe('windowCut', () => {
  it('is the resume cut only while the tip is the one it cut at', () => {
    const { state } = script();
    expect(windowCut(state)).toBe(state.resume?.cutAt);
    expect(windowCut({ ...state, tip: 'elsewhere' })).toBeNull();
    expect(windowCut({ ...state, resume: null })).toBeNull();
  });
});

describe('compactionsFor', () => {
  const base = {
    trigger: 'threshold' as const,
    provider: 'anthropic',
    model: 'm',
    tokensBefore: 2,
    tokensAfter: 1,
    cachedPrefixChanged: false,
  };
  it('says which decisions apply to the window, and why the others do not', () => {
    const { log } = script();
    const messages = log.flatMap((e) => (e.type === 'MessageAppended' ? [e.data.message] : []));
    const window = messages.slice(0, 4); // the tool turn: prompt, call, result, answer
    const elide = {
      ...base,
      id: 'e1',
      rung: 'elide' as const,
      results: [{ messageId: window[2].id, toolUseId: 'tu1', originalTokens: 9 }],
    };
    const gone = {
      ...elide,
      id: 'e2',
      results: [{ messageId: 'not-here', toolUseId: 'tu9', originalTokens: 9 }],
    };
    const view = compactionsFor('c1', window, [elide, gone]);
    expect(view.inForce).toEqual(['e1']);
    expect(view.notInForce).toEqual([
      { decisionId: 'e2', reason: 'no elided result is in the window' },
    ]);
    expect(compactionsFor('c1', [], [elide]).inForce).toEqual([]);
  });
});
