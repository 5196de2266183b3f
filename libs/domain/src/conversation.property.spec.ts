/**
 * Property tests for the invariants (docs/INVARIANTS.md) that live in the domain: random command sequences
 * through decide/evolve, checked after every step.
 */
import fc from 'fast-check';
import { type CommitTurnCommand } from './commands';
import { type ConversationEvent } from './events';
import { foldEvents } from './evolve';
import { type Message, type MessageInput } from './messages';
import { pmapEntries } from './persistent-map';
import { decodeState, encodeState } from './state-snapshot';
import { computeResumeCut, isTurnStart, budgetStart, type CutNode } from './resume-cut';
import {
  type ConversationState,
  getCheckpoint,
  getNode,
  isBranchable,
  isLiveCheckpoint,
  listCheckpoints,
  nodeOf,
} from './state';
import { activeBranch, branchPath } from './tree';
import { forkPathIds } from './decide/fork';
import { arbTurn, continuing, endsOnToolResults } from './testing/arbitraries';
import {
  deepFreeze,
  invalidCommittedTurns,
  stateSnapshot,
  transcriptProblems,
} from './testing/invariants';
import { counterDeps, exec, messagesOf, newSession, type Session } from './testing/session';

type Action =
  | { kind: 'commit'; turn: MessageInput[]; pick: number; fromTip: boolean; turnId: boolean }
  | { kind: 'broken'; turn: MessageInput[]; pick: number; dropResult: boolean }
  | { kind: 'retry' }
  | { kind: 'move'; pick: number; none: boolean }
  | { kind: 'checkpoint'; label: string; pick: number; replace: boolean }
  | { kind: 'rewind'; pick: number }
  | { kind: 'resume'; keepMessages?: number; keepTokens?: number }
  | { kind: 'fail' }
  | { kind: 'draft'; turn: MessageInput[]; pick: number; fromTip: boolean; cut: number }
  | { kind: 'commitDraft' }
  | { kind: 'discardDraft' };

const arbLabel = fc.constantFrom('a', 'b', 'c');

const arbAction: fc.Arbitrary<Action> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('commit' as const),
      turn: arbTurn({ withSystem: true, openEnds: true }),
      pick: fc.nat(),
      fromTip: fc.boolean(),
      turnId: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('broken' as const),
      turn: arbTurn({ openEnds: true }),
      pick: fc.nat(),
      dropResult: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'retry' as const }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('move' as const),
      pick: fc.nat(),
      // Now and then to none: an empty branch, the next commit from the tip a new root.
      none: fc.nat({ max: 5 }).map((n) => n === 0),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('checkpoint' as const),
      label: arbLabel,
      pick: fc.nat(),
      replace: fc.boolean(),
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('rewind' as const), pick: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record(
      {
        kind: fc.constant('resume' as const),
        keepMessages: fc.integer({ min: 1, max: 12 }),
        keepTokens: fc.integer({ min: 1, max: 400 }),
      },
      { requiredKeys: ['kind'] },
    ),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'fail' as const }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('draft' as const),
      turn: arbTurn({ withSystem: true, openEnds: true }),
      pick: fc.nat(),
      fromTip: fc.boolean(),
      cut: fc.nat(),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'commitDraft' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'discardDraft' as const }) },
);

/** Everything the property run remembers between steps. */
interface Run {
  session: Session;
  ids: string[];
  lastCommit: CommitTurnCommand | null;
  turnCounter: number;
  /** The rest of the turn the current draft was cut from (what its commit adds). */
  draftRest: MessageInput[];
}

const branchableIds = (state: ConversationState, ids: readonly string[]): string[] =>
  ids.filter((id) => {
    const node = getNode(state, id);
    return node !== undefined && isBranchable(node);
  });

const commitCommand = (
  run: Run,
  action: { turn: MessageInput[]; pick: number; fromTip?: boolean },
) => {
  const { state } = run.session;
  const atRoot = run.ids.length === 0 || (action.fromTip === true && state.tip === null);
  const candidates = branchableIds(state, run.ids);
  const tipNode = state.tip === null ? undefined : getNode(state, state.tip);
  const parentId = atRoot
    ? null
    : action.fromTip && tipNode !== undefined && isBranchable(tipNode)
      ? state.tip
      : candidates[action.pick % candidates.length];
  return { turn: fitTurn(state, parentId, action.turn), parentId };
};

/**
 * A generated turn as it may hang on `parentId`: whole at the root; without a system message
 * elsewhere; opening with the assistant after a turn that ended on tool results.
 */
const fitTurn = (
  state: ConversationState,
  parentId: string | null,
  turn: MessageInput[],
): MessageInput[] => {
  if (parentId === null) return turn;
  if (getNode(state, parentId)?.role === 'user') return continuing(turn);
  return turn.filter((m) => m.role !== 'system');
};

/** Run one action; returns the events it appended. Asserts the per-command invariants. */
const step = (run: Run, action: Action): ConversationEvent[] => {
  const s = run.session;
  const before = s.state;
  const logLength = s.log.length;
  switch (action.kind) {
    case 'commit': {
      const { turn, parentId } = commitCommand(run, action);
      const turnId = action.turnId ? `turn${run.turnCounter++}` : undefined;
      const cmd: CommitTurnCommand = {
        type: 'commitTurn',
        turnId,
        parentId,
        messages: turn,
        expectedTip: s.state.tip,
      };
      const d = exec(s, cmd);
      expect(d.ok).toBe(true);
      if (d.ok) {
        run.ids.push(...d.result.messageIds);
        run.lastCommit = { ...cmd, turnId: d.result.turnId };
      }
      break;
    }
    case 'broken': {
      if (run.ids.length === 0) break;
      const { turn, parentId } = commitCommand(run, action);
      const withResult = turn.findIndex((m) => m.content.some((b) => b.type === 'tool_result'));
      const calls = turn.flatMap((m, i) =>
        m.content.some((b) => b.type === 'tool_use') ? [i] : [],
      );
      const lastCall = calls.length === 0 ? -1 : calls[calls.length - 1];
      // Drop a tool_result (an unanswered tool_use); or stop right after a tool call (its results
      // missing), else before the answer (a prompt with no answer, or nothing at all).
      const broken =
        action.dropResult && withResult >= 0
          ? turn.map((m, i) => (i === withResult ? { ...m, content: m.content.slice(1) } : m))
          : lastCall >= 0
            ? turn.slice(0, lastCall + 1)
            : turn.slice(0, -1);
      const d = exec(s, { type: 'commitTurn', parentId, messages: broken });
      expect(d).toMatchObject({ ok: false, error: { code: 'invalid_turn' } });
      break;
    }
    case 'retry': {
      if (run.lastCommit === null) break;
      const d = exec(s, run.lastCommit);
      expect(d).toMatchObject({ ok: true, events: [], result: { replayed: true } });
      break;
    }
    case 'move': {
      if (run.ids.length === 0) break;
      const to = action.none ? null : run.ids[action.pick % run.ids.length];
      const d = exec(s, { type: 'moveTip', messageId: to });
      // (b) exactly one TipMoved (none when the tip is already there), and no message changed.
      expect(d.ok && d.events).toEqual(
        before.tip === to
          ? []
          : [{ type: 'TipMoved', data: { from: before.tip, to, reason: 'branch' } }],
      );
      expect(s.state.messages).toBe(before.messages);
      break;
    }
    case 'checkpoint': {
      const candidates = run.ids.filter((id) => getNode(s.state, id)?.boundary === true);
      if (candidates.length === 0) break;
      const messageId = candidates[action.pick % candidates.length];
      const existing = getCheckpoint(s.state, action.label);
      const d = exec(s, {
        type: 'setCheckpoint',
        label: action.label,
        messageId,
        replace: action.replace,
      });
      const clash =
        existing !== undefined && isLiveCheckpoint(existing) && existing.messageId !== messageId;
      if (clash && !action.replace)
        expect(d).toMatchObject({ ok: false, error: { code: 'checkpoint_exists' } });
      else expect(getCheckpoint(s.state, action.label)).toMatchObject({ messageId });
      break;
    }
    case 'rewind': {
      // Mostly a label that exists (live or dropped), sometimes one that does not.
      const labels = listCheckpoints(before).map((c) => c.label);
      const label =
        action.pick % 5 === 0 || labels.length === 0 ? 'zz' : labels[action.pick % labels.length];
      const target = getCheckpoint(before, label);
      const d = exec(s, { type: 'rewind', label });
      // (d) lands exactly on the target, or fails with a clear code; never a TipMoved from = to.
      if (d.ok) {
        expect(s.state.tip).toBe(target?.messageId);
        if (before.tip === target?.messageId)
          expect(d.events.map((e) => e.type)).not.toContain('TipMoved');
      } else
        expect(d.error.code).toBe(
          target === undefined ? 'checkpoint_not_found' : 'checkpoint_dropped',
        );
      break;
    }
    case 'resume': {
      const d = exec(s, {
        type: 'resume',
        keepMessages: action.keepMessages,
        keepTokens: action.keepTokens,
      });
      const limitsGiven = action.keepMessages !== undefined || action.keepTokens !== undefined;
      if (!limitsGiven || before.tip === null) {
        expect(d).toMatchObject({ ok: false, error: { code: 'invalid_resume' } });
        break;
      }
      expect(d.ok).toBe(true);
      if (!d.ok) break;
      // A resume that cuts exactly where the window is already cut appends nothing.
      if (d.events.length === 0) {
        expect(before.resume).toMatchObject({ cutAt: d.result.cutAt, tip: before.tip });
        break;
      }
      checkResumeBatch(before, d.events);
      break;
    }
    case 'draft': {
      const { turn, parentId } = commitCommand(run, action);
      const cut = 1 + (action.cut % turn.length);
      const d = exec(s, { type: 'saveDraft', parentId, messages: turn.slice(0, cut) });
      expect(d.ok).toBe(true);
      run.draftRest = turn.slice(cut);
      // A draft is never history: no message, no tip move, no turn, no resume change.
      expect(s.state.messages).toBe(before.messages);
      expect(s.state.tip).toBe(before.tip);
      expect(s.state.turns).toBe(before.turns);
      expect(s.state.resume).toBe(before.resume);
      // A new draft replaces the old one.
      expect(s.state.draft).toMatchObject({ parentId, messages: turn.slice(0, cut) });
      break;
    }
    case 'discardDraft': {
      const d = exec(s, { type: 'discardDraft' });
      expect(d).toMatchObject({ ok: true, result: { discarded: before.draft !== null } });
      expect(s.state.draft).toBeNull();
      expect(s.state.messages).toBe(before.messages);
      break;
    }
    case 'commitDraft': {
      const draft = before.draft;
      const d = exec(s, { type: 'commitDraft', messages: run.draftRest });
      if (draft === null) {
        expect(d).toMatchObject({ ok: false, error: { code: 'draft_not_found' } });
        break;
      }
      if (!d.ok) {
        // Only a draft at the root can have lost its place (a root was committed since).
        expect({ code: d.error.code, parentId: draft.parentId }).toEqual({
          code: 'invalid_turn',
          parentId: null,
        });
        expect(s.state.draft).toBe(draft);
        break;
      }
      // The draft's messages then the rest, as one turn, and the draft gone in the same append.
      expect(d.result.messageIds).toHaveLength(draft.messages.length + run.draftRest.length);
      expect(d.events[d.events.length - 1]).toMatchObject({ type: 'DraftDiscarded' });
      expect(s.state.draft).toBeNull();
      expect(s.state.tip).toBe(d.result.tip);
      run.ids.push(...d.result.messageIds);
      break;
    }
    case 'fail': {
      const d = exec(s, {
        type: 'recordFailure',
        input: { n: s.log.length },
        error: { message: 'boom' },
      });
      expect(d.ok).toBe(true);
      break;
    }
  }
  return s.log.slice(logLength);
};

/** (d)(e) A resume batch: drops first, then RunResumed; the window is clean; drops are exact. */
const checkResumeBatch = (
  before: ConversationState,
  events: readonly ConversationEvent[],
): void => {
  const last = events[events.length - 1];
  if (last.type !== 'RunResumed') throw new Error('RunResumed must close the batch');
  expect(events.slice(0, -1).every((e) => e.type === 'CheckpointDropped')).toBe(true);
  const branch = activeBranch(before);
  const kept = branch.slice(branch.indexOf(last.data.cutAt));
  expect(kept[kept.length - 1]).toBe(before.tip);
  const first = getNode(before, last.data.cutAt);
  expect(first?.toolResultIds).toEqual([]);
  const parent = first?.parentId == null ? undefined : getNode(before, first.parentId);
  expect(parent?.toolUseIds ?? []).toEqual([]);
  const keptSet = new Set(kept);
  const shouldDrop = listCheckpoints(before)
    .filter((c) => isLiveCheckpoint(c) && !keptSet.has(c.messageId))
    .map((c) => c.label);
  expect(last.data.droppedCheckpoints).toEqual(shouldDrop);
  expect(
    events.slice(0, -1).map((e) => (e.type === 'CheckpointDropped' ? e.data.label : '')),
  ).toEqual(shouldDrop);
};

const newRun = (): Run => {
  const session = newSession(counterDeps('m'));
  exec(session, { type: 'start', conversationId: 'conv' });
  return { session, ids: [], lastCommit: null, turnCounter: 0, draftRest: [] };
};

describe('conversation invariants over random command sequences', () => {
  it('(a) evolve never mutates earlier states, events only append, replay equals live', () => {
    fc.assert(
      fc.property(fc.array(arbAction, { maxLength: 40 }), (actions) => {
        const run = newRun();
        const states: { state: ConversationState; snapshot: string }[] = [];
        const logs: { length: number; json: string }[] = [];
        for (const action of actions) {
          const state = deepFreeze(run.session.state);
          states.push({ state, snapshot: stateSnapshot(state) });
          logs.push({ length: run.session.log.length, json: JSON.stringify(run.session.log) });
          deepFreeze(run.session.log.slice());
          step(run, action);
        }
        for (const { state, snapshot } of states) expect(stateSnapshot(state)).toBe(snapshot);
        for (const { length, json } of logs)
          expect(JSON.stringify(run.session.log.slice(0, length))).toBe(json);
        const { log, state } = run.session;
        const appended = log.flatMap((e) =>
          e.type === 'MessageAppended' ? [e.data.message.id] : [],
        );
        expect(new Set(appended).size).toBe(appended.length);
        expect(stateSnapshot(foldEvents(log))).toBe(stateSnapshot(state));
        expect(state.revision).toBe(log.length - 1);
      }),
      { numRuns: 60 },
    );
  });

  it('(a) a write-side snapshot at any revision, with the events after it folded, equals the live state', () => {
    fc.assert(
      fc.property(fc.array(arbAction, { maxLength: 40 }), fc.nat(), (actions, cut) => {
        const run = newRun();
        for (const action of actions) step(run, action);
        const { log, state } = run.session;
        const at = cut % log.length;
        const before = foldEvents(log.slice(0, at + 1));
        const text = encodeState(before);
        const decoded = decodeState(text);
        expect(decoded).not.toBeNull();
        expect(stateSnapshot(decoded as ConversationState)).toBe(stateSnapshot(before));
        expect(encodeState(decoded as ConversationState)).toBe(text);
        const resumed = foldEvents(log.slice(at + 1), decoded as ConversationState);
        expect(stateSnapshot(resumed)).toBe(stateSnapshot(state));
        expect(encodeState(resumed)).toBe(encodeState(state));
      }),
      { numRuns: 60 },
    );
  });

  it('(f) every committed turn validates, and every path in the tree is a valid transcript', () => {
    fc.assert(
      fc.property(fc.array(arbAction, { maxLength: 40 }), (actions) => {
        const run = newRun();
        for (const action of actions) step(run, action);
        const { log, state } = run.session;
        expect(invalidCommittedTurns(log)).toEqual([]);
        const messages = messagesOf(log);
        const turnEnds = new Set(
          log.flatMap((e) =>
            e.type === 'MessageAppended' && e.data.turnEnd === true ? [e.data.message.id] : [],
          ),
        );
        const tips = new Set(log.flatMap((e) => (e.type === 'TurnCommitted' ? [e.data.tip] : [])));
        for (const [id, node] of pmapEntries(state.messages)) {
          // A message ends a turn exactly when it is the tip of a committed turn.
          expect({ id, boundary: node.boundary }).toEqual({ id, boundary: tips.has(id) });
          if (!node.boundary) continue;
          const path = (branchPath(state, id) ?? []).map((m) => messages.get(m) as Message);
          expect(transcriptProblems(path)).toEqual([]);
          expect(nodeOf(messages.get(id) as Message, turnEnds.has(id))).toEqual(node);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('(c) a fork copies with fresh ids and the same shape; later commits stay on their side', () => {
    fc.assert(
      fc.property(
        fc.array(arbAction, { minLength: 1, maxLength: 12 }),
        fc.array(arbTurn({ openEnds: true }), { minLength: 1, maxLength: 3 }),
        fc.array(arbTurn({ openEnds: true }), { minLength: 1, maxLength: 3 }),
        (actions, sourceTurns, forkTurns) => {
          const run = newRun();
          for (const action of actions) step(run, action);
          const src = run.session;
          const ends = branchableIds(src.state, run.ids);
          if (ends.length === 0) return;
          const end = ends[ends.length - 1];
          const byId = messagesOf(src.log);
          const path = (forkPathIds(src.state, end) ?? []).map((id) => byId.get(id) as Message);
          const d = exec(src, { type: 'fork', messageId: end, path });
          if (!d.ok) throw new Error(d.error.message);
          const { idMap, forkEvents } = d.result;
          const fork: Session = {
            state: foldEvents(forkEvents),
            log: [...forkEvents],
            deps: counterDeps('f'),
          };
          // Fresh ids, same shape.
          const copies = messagesOf(fork.log);
          for (const original of path) {
            const copy = copies.get(idMap[original.id]) as Message;
            expect(src.state.messages.size).toBeGreaterThan(0);
            expect(getNode(src.state, copy.id)).toBeUndefined();
            expect(copy.content).toEqual(original.content);
            expect(copy.role).toBe(original.role);
            expect(copy.parentId).toBe(
              original.parentId === null ? null : idMap[original.parentId],
            );
            // Turn ends stay turn ends, those on tool results too.
            expect(getNode(fork.state, copy.id)?.boundary).toBe(
              getNode(src.state, original.id)?.boundary,
            );
          }
          expect(fork.state.tip).toBe(idMap[end]);
          for (const c of listCheckpoints(fork.state))
            expect(getNode(fork.state, c.messageId)).toBeDefined();
          // Later commits to either side are invisible to the other.
          const commitAll = (side: Session, turns: MessageInput[][], from: string) => {
            let parentId = from;
            return turns.flatMap((turn) => {
              const messages = fitTurn(side.state, parentId, turn);
              const r = exec(side, { type: 'commitTurn', parentId, messages });
              if (!r.ok) throw new Error(r.error.message);
              parentId = r.result.tip;
              return r.result.messageIds;
            });
          };
          const srcCount = src.state.messages.size;
          const forkCount = fork.state.messages.size;
          const srcNew = commitAll(src, sourceTurns, end);
          const forkNew = commitAll(fork, forkTurns, idMap[end]);
          for (const id of srcNew) expect(getNode(fork.state, id)).toBeUndefined();
          for (const id of forkNew) expect(getNode(src.state, id)).toBeUndefined();
          expect(fork.state.messages.size).toBe(forkCount + forkNew.length);
          expect(src.state.messages.size).toBe(srcCount + srcNew.length);
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('resume cuts over random paths', () => {
  const arbPath: fc.Arbitrary<CutNode[]> = fc
    .array(arbTurn({ maxToolRounds: 3, openEnds: true }), { minLength: 1, maxLength: 6 })
    .map((turns) => {
      let parentId: string | null = null;
      const chained = turns.map((t, k) =>
        k > 0 && endsOnToolResults(turns[k - 1]) ? continuing(t) : t,
      );
      return chained.flat().map((input, i) => {
        const id = `n${i}`;
        const node = nodeOf({ ...input, id, parentId, turnId: 't', createdAt: '' });
        parentId = id;
        return { id, ...node };
      });
    });

  it('(e) never start with an orphan tool_result, never split a tool pair, never move forward', () => {
    fc.assert(
      fc.property(
        arbPath,
        fc.option(fc.integer({ min: 1, max: 40 }), { nil: undefined }),
        fc.option(fc.integer({ min: 1, max: 500 }), { nil: undefined }),
        (path, keepMessages, keepTokens) => {
          const cut = computeResumeCut(path, { keepMessages, keepTokens });
          if (cut === null) throw new Error('non-empty path has a cut');
          const i = cut.startIndex;
          expect(path[i].toolResultIds).toEqual([]);
          if (i > 0) expect(path[i - 1].toolUseIds).toEqual([]);
          expect(path[i].role === 'user' || i === 0).toBe(true);
          const budget = budgetStart(path, { keepMessages, keepTokens });
          expect(i).toBeLessThanOrEqual(budget);
          // The latest clean start at or before the budget: nothing cleaner was skipped.
          for (let j = i + 1; j <= Math.min(budget, path.length - 1); j++)
            expect(isTurnStart(path, j)).toBe(false);
          expect(cut.keptIds).toEqual(path.slice(i).map((n) => n.id));
        },
      ),
    );
  });
});
