/**
 * Real data nobody here shaped, through the domain: the importer's output for real Claude Code, Codex
 * and pi sessions (test/fixtures/real) committed through decide/evolve keeps every invariant —
 * the fold equals the live state, every resume cut is clean, and branching, checkpoints, rewind
 * and fork work on the real tree.
 */
import * as path from 'node:path';
import {
  activeBranch,
  type ConversationEvent,
  decide,
  foldEvents,
  forkPathIds,
  getNode,
  type Message,
} from '@arbor/domain';
import { stateSnapshot } from '@arbor/domain/testing/invariants';
import { messagesOf, ok, type Session } from '@arbor/domain/testing/session';
import { REAL_FIXTURES } from '@arbor/fixtures';
import { importSessionFile, sessionFiles } from './index';
import { commitConversation, treeProblems } from './testing/commit';

const REAL = REAL_FIXTURES;
const IDEAS = path.join(
  REAL,
  'claude-code',
  'experiments-ideas__03eb5929-52b3-4b13-ada3-b93ae35806b8.jsonl',
);

/** The invariants every committed conversation must keep. */
const expectSound = (s: Session): void => {
  expect(treeProblems(s)).toEqual([]);
  expect(stateSnapshot(foldEvents(s.log))).toBe(stateSnapshot(s.state));
  // Resume cuts of the active branch are clean (every one on short branches, ~150 on long ones).
  const branch = activeBranch(s.state);
  const stride = Math.max(1, Math.floor(branch.length / 150));
  for (let keep = 1; keep <= branch.length; keep += keep < 50 ? 1 : stride) {
    const d = decide({ type: 'resume', keepMessages: keep }, s.state, s.deps);
    if (!d.ok) throw new Error(d.error.message);
    const first = getNode(s.state, d.result.cutAt);
    expect(first?.toolResultIds).toEqual([]);
    const parent = first?.parentId == null ? undefined : getNode(s.state, first.parentId);
    expect(parent?.toolUseIds ?? []).toEqual([]);
  }
};

describe('the real Claude Code session with a branch, through the domain', () => {
  const [conversation] = importSessionFile(IDEAS).conversations;

  it('commits every turn and keeps the real branch', () => {
    const { session, failures } = commitConversation(conversation);
    expect(failures).toEqual([]);
    expect(conversation.turns).toHaveLength(7);
    expect(session.state.messages.size).toBe(18);
    expect(session.state.tip).toBe('18037c5a-b000-42c9-a689-06fa14b1300d');
    expectSound(session);
  });

  it('branches, checkpoints, rewinds and forks on the real tree', () => {
    const { session: s } = commitConversation(conversation);
    const otherEnd = '95b483e6-74a7-4c50-b3c8-705944edf7ae';
    ok(s, { type: 'setCheckpoint', label: 'liked-it' });
    ok(s, { type: 'moveTip', messageId: otherEnd });
    expect(ok(s, { type: 'rewind', label: 'liked-it', digest: 'compared both takes' }).tip).toBe(
      '18037c5a-b000-42c9-a689-06fa14b1300d',
    );
    const byId = messagesOf(s.log);
    const pathIds = forkPathIds(s.state, otherEnd) ?? [];
    const fork = ok(s, {
      type: 'fork',
      messageId: otherEnd,
      path: pathIds.map((id) => byId.get(id) as Message),
    });
    const forkState = foldEvents(fork.forkEvents as ConversationEvent[]);
    expect(activeBranch(forkState)).toEqual(pathIds.map((id) => fork.idMap[id]));
    expect(forkState.messages.size).toBe(pathIds.length);
    expectSound(s);
  });
});

describe('every real session file, through the domain', () => {
  const files = sessionFiles(REAL);

  it('finds the fixtures', () => {
    expect(files.length).toBe(16);
  });

  it.each(files.map((f) => [path.basename(f), f]))('%s stays sound', (_, file) => {
    for (const c of importSessionFile(file).conversations) {
      const { session, failures } = commitConversation(c);
      expect(failures).toEqual([]);
      expectSound(session);
    }
  });
});
