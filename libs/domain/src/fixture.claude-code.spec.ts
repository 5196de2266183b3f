/**
 * Real data nobody here shaped: Claude Code session files (shared/fixtures/real/claude-code),
 * converted by a tiny test converter into turns and committed through decide/evolve.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { decide } from './conversation';
import { type ConversationEvent } from './events';
import { foldEvents } from './evolve';
import { type Message } from './messages';
import { pmapEntries } from './persistent-map';
import { getNode } from './state';
import { activeBranch, branchPath, branchPoints } from './tree';
import { forkPathIds } from './decide/fork';
import { convertClaudeCode, type Conversion } from './testing/claude-code';
import { invalidCommittedTurns, stateSnapshot, transcriptProblems } from './testing/invariants';
import { counterDeps, exec, messagesOf, newSession, ok, type Session } from './testing/session';

// shared/ sits beside the repository, here and in CI.
const DIR = path.resolve(__dirname, '../../../../shared/fixtures/real/claude-code');
const IDEAS = 'experiments-ideas__03eb5929-52b3-4b13-ada3-b93ae35806b8.jsonl';

const read = (file: string): string => {
  const full = path.join(DIR, file);
  if (!fs.existsSync(full))
    throw new Error(`fixture missing: ${full} (shared/ must sit beside the repo)`);
  return fs.readFileSync(full, 'utf8');
};

/** Commit every converted turn; returns the session and the codes of failed commits. */
const commitAll = (conversion: Conversion): { session: Session; failures: string[] } => {
  const session = newSession(counterDeps('gen'));
  ok(session, { type: 'start', conversationId: 'real' });
  const failures: string[] = [];
  for (const turn of conversion.turns) {
    const d = exec(session, {
      type: 'commitTurn',
      parentId: turn.parentId,
      messages: turn.messages,
    });
    if (!d.ok) failures.push(d.error.code);
  }
  return { session, failures };
};

/** The invariants every committed conversation must keep. */
const expectSound = (s: Session): void => {
  expect(invalidCommittedTurns(s.log)).toEqual([]);
  const messages = messagesOf(s.log);
  for (const [id, node] of pmapEntries(s.state.messages)) {
    if (!node.boundary) continue;
    const transcript = (branchPath(s.state, id) ?? []).map((m) => messages.get(m) as Message);
    expect(transcriptProblems(transcript)).toEqual([]);
  }
  expect(stateSnapshot(foldEvents(s.log))).toBe(stateSnapshot(s.state));
  // Every possible resume cut of the active branch is clean.
  const branch = activeBranch(s.state);
  for (let keep = 1; keep <= branch.length; keep++) {
    const d = decide({ type: 'resume', keepMessages: keep }, s.state, s.deps);
    if (!d.ok) throw new Error(d.error.message);
    const first = getNode(s.state, d.result.cutAt);
    expect(first?.toolResultIds).toEqual([]);
    const parent = first?.parentId == null ? undefined : getNode(s.state, first.parentId);
    expect(parent?.toolUseIds ?? []).toEqual([]);
  }
};

describe(`real Claude Code session ${IDEAS}`, () => {
  const raw = read(IDEAS);
  const conversion = convertClaudeCode(raw);

  it('converts, skipping only the records the converter does not handle', () => {
    expect(conversion.skipped).toEqual({
      'record without uuid (file-history-snapshot)': 9,
      'meta record': 1,
      'local command record': 2,
    });
    expect(conversion.turns).toHaveLength(7);
  });

  it('commits every turn, keeps the real branch, and trips no invariant', () => {
    const { session, failures } = commitAll(conversion);
    expect(failures).toEqual([]);
    expect(session.state.messages.size).toBe(18);
    // The user edited their second prompt: two turns hang on the first turn's final answer.
    const links = [...pmapEntries(session.state.messages)].map(([id, n]) => ({
      id,
      parentId: n.parentId,
    }));
    expect(branchPoints(links)).toEqual(['3220c04b-b0dc-48b5-845b-3c1c10f6a684']);
    // A merged message keeps the uuid of its first line.
    expect(session.state.tip).toBe('18037c5a-b000-42c9-a689-06fa14b1300d');
    expectSound(session);
  });

  it('keeps thinking blocks and their signatures byte-exact', () => {
    const { session } = commitAll(conversion);
    const committed = JSON.stringify([...messagesOf(session.log).values()].map((m) => m.content));
    const signatures = [...raw.matchAll(/"signature":\s*"([^"]+)"/g)].map((m) => m[1]);
    expect(signatures.length).toBeGreaterThan(0);
    for (const sig of signatures) expect(committed).toContain(sig);
  });

  it('branches, checkpoints, rewinds and forks on the real tree', () => {
    const { session: s } = commitAll(conversion);
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

describe('every real Claude Code main session the converter handles', () => {
  const files = fs.existsSync(DIR) ? fs.readdirSync(DIR).filter((f) => !f.includes('agent-')) : [];

  it('finds the fixtures', () => {
    expect(files.length).toBeGreaterThan(5);
  });

  it.each(files)('%s commits whole and stays sound', (file) => {
    const conversion = convertClaudeCode(read(file));
    const { session, failures } = commitAll(conversion);
    expect(failures).toEqual([]);
    expect(session.state.messages.size).toBe(
      conversion.turns.reduce((n, t) => n + t.messages.length, 0),
    );
    expectSound(session);
    if (file.startsWith('experiments-worktrees')) {
      // Its tool results carry `tool_reference` blocks: an unknown block type, rejected (SPEC §7),
      // so the converter drops those messages and the turn they sit in.
      expect(conversion.skipped['message failing validation (unknown_block_type)']).toBe(3);
      expect(conversion.turns).toHaveLength(0);
    } else {
      expect(conversion.turns.length).toBeGreaterThan(0);
    }
  });
});
