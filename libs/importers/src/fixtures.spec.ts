/**
 * Every real session file in test/fixtures/real imports, and what it imports commits whole
 * through the domain's decider: every path a valid transcript, the tip where the file was last,
 * and every message line of the file either imported or reported.
 */
import fs from 'node:fs';
import path from 'node:path';
import { activeBranch, branchPoints, pmapEntries } from '@arbor/domain';
import { REAL_FIXTURES } from '@arbor/fixtures';
import { importSessionFile, sessionFiles } from './index';
import { commitConversation, treeProblems } from './testing/commit';

const REAL = REAL_FIXTURES;
const FILES = sessionFiles(REAL);
const name = (f: string) => path.relative(REAL, f);

/** Line numbers of the file's message records (what must be imported or reported). */
const messageLines = (file: string): number[] =>
  fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .flatMap((raw, i) => {
      if (raw.trim() === '') return [];
      const v = JSON.parse(raw) as {
        type?: string;
        message?: unknown;
        uuid?: unknown;
        payload?: { type?: string };
      };
      const isCc = (v.type === 'user' || v.type === 'assistant') && v.uuid !== undefined;
      // Codex: every response item (reasoning items are reasoning blocks).
      const isCodex = v.type === 'response_item';
      return isCc || isCodex || v.type === 'message' ? [i + 1] : [];
    });

describe('importing every real session file', () => {
  it('finds the fixtures', () => {
    expect(FILES.filter((f) => f.includes('/claude-code/')).length).toBeGreaterThanOrEqual(12);
    expect(FILES.filter((f) => f.includes('/pi/')).length).toBe(2);
    expect(FILES.filter((f) => f.includes('/codex/')).length).toBe(2);
  });

  describe.each(FILES.map((f) => [name(f), f]))('%s', (_, file) => {
    const result = importSessionFile(file);

    it('commits every turn, every path valid, the tip where the file was last', () => {
      expect(result.conversations.length).toBeGreaterThanOrEqual(1);
      for (const c of result.conversations) {
        const { session, failures } = commitConversation(c);
        expect(failures).toEqual([]);
        expect(treeProblems(session)).toEqual([]);
        expect(session.state.tip).toBe(c.tip);
        expect(activeBranch(session.state)).toEqual(c.activeBranch);
        const links = [...pmapEntries(session.state.messages)].map(([id, n]) => ({
          id,
          parentId: n.parentId,
        }));
        expect(branchPoints(links).sort()).toEqual([...c.branchPoints].sort());
        expect(session.state.messages.size).toBe(
          c.turns.reduce((n, t) => n + t.messages.length, 0),
        );
      }
    });

    it('imports or reports every message line, and counts what it reports', () => {
      const covered = new Set(result.conversations.flatMap((c) => c.turns.flatMap((t) => t.lines)));
      const reported = new Set(result.report.skipped.map((s) => s.line));
      const lost = messageLines(file).filter((l) => !covered.has(l) && !reported.has(l));
      expect(lost).toEqual([]);
      // Most of each file makes it in.
      expect(covered.size / messageLines(file).length).toBeGreaterThan(0.85);
      const { report } = result;
      expect(report.conversations).toBe(result.conversations.length);
      expect(report.turns).toBe(result.conversations.reduce((n, c) => n + c.turns.length, 0));
    });
  });
});

const CC = (prefix: string): string => {
  const f = FILES.find((x) => path.basename(x).startsWith(prefix));
  if (f === undefined) throw new Error(`fixture ${prefix} missing`);
  return f;
};

describe('what the real Claude Code files exercise', () => {
  it('keeps the real branch of experiments-ideas: two prompts under one answer', () => {
    const [c] = importSessionFile(CC('experiments-ideas__')).conversations;
    expect(c.branchPoints).toEqual(['3220c04b-b0dc-48b5-845b-3c1c10f6a684']);
    // The file's last records (an /exit under the second prompt's branch) pick that branch.
    expect(c.tip).toBe('18037c5a-b000-42c9-a689-06fa14b1300d');
    expect(c.activeBranch.some((x) => x.startsWith('9edc38e6'))).toBe(true);
    expect(c.activeBranch.some((x) => x.startsWith('5270777a'))).toBe(false);
    // The other branch is imported too, and is not the last commit.
    const ends = c.turns.map((t) => t.messages[t.messages.length - 1].id);
    expect(ends).toContain('95b483e6-74a7-4c50-b3c8-705944edf7ae');
    expect(ends[ends.length - 1]).toBe(c.tip);
  });

  it('merges the lines of one API message and the results of parallel calls: no false branch', () => {
    const file = CC('Users-dain-workspace-claude-code-log-sample__37f83ec9');
    const text = fs.readFileSync(file, 'utf8');
    // The file has lines sharing message.id, and tool_use lines with two children.
    const ids = text
      .split('\n')
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as { message?: { id?: string } }).message?.id)
      .filter((x): x is string => x !== undefined);
    expect(new Set(ids).size).toBeLessThan(ids.length);
    const [c] = importSessionFile(file).conversations;
    expect(c.branchPoints).toEqual([]);
    const apiIds = c.turns.flatMap((t) => t.messages).filter((m) => m.role === 'assistant');
    expect(apiIds.length).toBe(new Set(ids).size);
  });

  it('imports subagent transcripts as their own sidechain conversations', () => {
    const subagents = FILES.filter((f) => /agent-[0-9a-f]+\.jsonl$/.test(f));
    expect(subagents.length).toBe(4);
    for (const f of subagents) {
      const r = importSessionFile(f);
      expect(r.conversations.map((c) => c.kind)).toEqual(['sidechain']);
      expect(r.conversations[0].title).toBe(path.basename(f, '.jsonl'));
    }
  });

  it('adds a prompt before a subagent transcript that starts with the assistant, and says so', () => {
    const r = importSessionFile(CC('src-deep-manifest__agent-'));
    expect(r.conversations[0].turns[0].messages[0].id).toBe('synthetic-prompt');
    expect(r.report.changed.map((n) => n.reason)).toContain(
      'a user prompt was added before a transcript that starts with the assistant',
    );
  });

  it('keeps tool_reference blocks of tool results as text, and reports each', () => {
    const file = CC('experiments-worktrees__ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl');
    const r = importSessionFile(file);
    const notes = r.report.changed.filter((n) => n.reason.startsWith('tool_reference'));
    expect(notes.length).toBe(3);
    const json = JSON.stringify(r.conversations);
    expect(json).toContain('\\"type\\":\\"tool_reference\\"');
    expect(json).not.toContain('"type":"tool_reference"');
  });

  it('skips summary lines that point nowhere, one note per line', () => {
    const file = CC('Users-dain-workspace-claude-code-log-sample__fe869ecb');
    const summaries = fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .flatMap((l, i) => (l.includes('"type":"summary"') ? [i + 1] : []));
    expect(summaries.length).toBe(15);
    const r = importSessionFile(file);
    expect(
      r.report.skipped.filter((s) => s.reason.startsWith('summary')).map((s) => s.line),
    ).toEqual(summaries);
  });

  it('keeps thinking signatures and both real PNG images byte-exact', () => {
    for (const prefix of [
      'Users-dain-workspace-claude-code-log-sample__0d3a8e6f',
      'Users-dain-workspace-danieldemmel-me-next__9e953218',
    ]) {
      const file = CC(prefix);
      const raw = fs.readFileSync(file, 'utf8');
      const json = JSON.stringify(importSessionFile(file).conversations);
      const images = [...raw.matchAll(/"data":\s*"(iVBOR[^"]+)"/g)].map((m) => m[1]);
      expect(images.length).toBeGreaterThan(0);
      for (const data of images) expect(json).toContain(data);
    }
    const ideas = CC('experiments-ideas__');
    const signatures = [...fs.readFileSync(ideas, 'utf8').matchAll(/"signature":\s*"([^"]+)"/g)];
    expect(signatures.length).toBeGreaterThan(0);
    const json = JSON.stringify(importSessionFile(ideas).conversations);
    for (const [, sig] of signatures) expect(json).toContain(sig);
  });
});

describe('what the real pi files exercise', () => {
  const PI = (f: string) => path.join(REAL, 'pi', f);

  it('reads v1 as one linear chain, through both compactions, and reports them', () => {
    const r = importSessionFile(PI('before-compaction.jsonl'));
    expect(r.report.format).toBe('pi');
    expect(r.conversations).toHaveLength(1);
    const [c] = r.conversations;
    expect(c.branchPoints).toEqual([]);
    expect(
      c.turns.every((t, i) => i === 0 || t.parentId === c.turns[i - 1].messages.at(-1)?.id),
    ).toBe(true);
    expect(
      r.report.skipped.filter((s) => s.reason.startsWith('compaction')).map((s) => s.line),
    ).toEqual([360, 629]);
    // Messages on both sides of each compaction are there.
    const ids = new Set(c.activeBranch);
    expect(ids.has('L359') || ids.has('L358')).toBe(true);
    expect(ids.has('L1001')).toBe(true);
  });

  it('drops tool calls that never got a result, and says which, by line', () => {
    const r = importSessionFile(PI('large-session.jsonl'));
    const dropped = r.report.skipped.filter((s) => s.reason === 'tool_use without its tool_result');
    expect(dropped.length).toBe(18);
    expect(new Set(dropped.map((d) => d.line))).toEqual(new Set([33, 234, 843]));
    const calls = r.conversations[0].turns.flatMap((t) => t.messages).flatMap((m) => m.content);
    const dropIds = dropped.map((d) => (d.detail ?? '').split(' ')[0]);
    for (const id of dropIds)
      expect(calls.some((b) => b.type === 'tool_use' && b.id === id)).toBe(false);
  });
});

describe('what the real Codex rollouts exercise', () => {
  const CODEX = (prefix: string) => {
    const f = FILES.find((x) => x.includes('/codex/') && path.basename(x).startsWith(prefix));
    if (f === undefined) throw new Error(`fixture ${prefix} missing`);
    return f;
  };
  const records = (file: string) =>
    fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { type: string; payload: Record<string, unknown> });

  it.each([['rollout-2026-05-11T11-26-55'], ['rollout-2026-05-11T13-28-45']])(
    '%s: every call imported with its output, one message per model response',
    (prefix) => {
      const file = CODEX(prefix);
      const items = records(file)
        .filter((r) => r.type === 'response_item')
        .map((r) => r.payload);
      const calls = items.filter(
        (p) => p.type === 'function_call' || p.type === 'custom_tool_call',
      );
      const r = importSessionFile(file);
      expect(r.report.format).toBe('codex');
      const [c] = r.conversations;
      const blocks = c.turns.flatMap((t) => t.messages).flatMap((m) => m.content);
      const uses = blocks.flatMap((b) => (b.type === 'tool_use' ? [b.id] : []));
      const results = blocks.flatMap((b) => (b.type === 'tool_result' ? [b.tool_use_id] : []));
      expect(uses.sort()).toEqual(calls.map((p) => String(p.call_id)).sort());
      expect(results.sort()).toEqual(uses.sort());
      // Prompts: the user's own words, once each (response_item or, where absent, event_msg).
      const prompts = records(file).filter(
        (x) => x.type === 'event_msg' && x.payload.type === 'user_message',
      );
      expect(c.turns).toHaveLength(prompts.length);
      expect(c.branchPoints).toEqual([]);
      expect(c.metadata).toMatchObject({ source: { format: 'codex' } });
    },
  );

  it('keeps web searches and apply_patch calls, and the usage of each model call', () => {
    const r = importSessionFile(CODEX('rollout-2026-05-11T11-26-55'));
    const messages = r.conversations[0].turns.flatMap((t) => t.messages);
    const json = JSON.stringify(messages);
    expect(json).toContain('\\"type\\":\\"web_search_call\\"');
    const patches = messages
      .flatMap((m) => m.content)
      .filter((b) => b.type === 'tool_use' && b.name === 'apply_patch');
    expect(patches).toHaveLength(3);
    const assistants = messages.filter((m) => m.role === 'assistant');
    expect(assistants.every((m) => m.model === 'gpt-5.5')).toBe(true);
    expect(assistants.filter((m) => m.usage !== undefined).length).toBeGreaterThan(
      assistants.length / 2,
    );
  });
});
