/**
 * Whatever a session file holds, the importer's output is something Arbor accepts: random pi
 * trees and Claude Code record soups (random parents, roles, tool ids, empty and aborted
 * messages, shared API ids) always import into conversations whose every turn the domain
 * commits, and every message line is imported or reported.
 */
import fc from 'fast-check';
import { importClaudeCode } from './claude-code/import';
import { importPi } from './pi/import';
import { commitConversation, treeProblems } from './testing/commit';
import { jsonl, type Rec, text } from './testing/records';
import { type FileImport } from './types';

const TOOL_IDS = ['t1', 't2', 't3'];

/** One random entry: what it is, and which earlier entry it hangs on. */
const entry = fc.record({
  parent: fc.nat(),
  linear: fc.boolean(),
  kind: fc.constantFrom('user', 'assistant', 'result', 'other', 'empty'),
  calls: fc.subarray(TOOL_IDS),
  text: fc.boolean(),
  apiId: fc.constantFrom('m1', 'm2', 'm3', 'm4', 'm5', 'm6'),
});
type Entry = typeof entry extends fc.Arbitrary<infer T> ? T : never;

const parentOf = (e: Entry, i: number): number | null =>
  i === 0 ? null : e.linear ? i - 1 : e.parent % i;

const piFile = (entries: Entry[]): Rec[] => [
  { type: 'session', version: 3, id: 's', timestamp: 't', cwd: '/' },
  ...entries.map((e, i) => {
    const p = parentOf(e, i);
    const link = { id: `e${i}`, parentId: p === null ? null : `e${p}` };
    switch (e.kind) {
      case 'user':
        return { type: 'message', ...link, message: { role: 'user', content: [text(`u${i}`)] } };
      case 'assistant':
        return {
          type: 'message',
          ...link,
          message: {
            role: 'assistant',
            content: [
              ...(e.text ? [text(`a${i}`)] : []),
              ...e.calls.map((id) => ({ type: 'toolCall', id, name: 'x', arguments: {} })),
            ],
          },
        };
      case 'result':
        return {
          type: 'message',
          ...link,
          message: { role: 'toolResult', toolCallId: e.calls[0] ?? 't1', content: [text('r')] },
        };
      case 'empty':
        return { type: 'message', ...link, message: { role: 'assistant', content: [] } };
      default:
        return { type: 'model_change', ...link, provider: 'p', modelId: 'm' };
    }
  }),
];

const ccFile = (entries: Entry[]): Rec[] =>
  entries.map((e, i) => {
    const p = parentOf(e, i);
    const link = { uuid: `r${i}`, parentUuid: p === null ? null : `r${p}` };
    switch (e.kind) {
      case 'user':
        return { type: 'user', ...link, message: { role: 'user', content: `u${i}` } };
      case 'assistant':
      case 'empty':
        return {
          type: 'assistant',
          ...link,
          message: {
            id: e.apiId,
            role: 'assistant',
            content: [
              ...(e.text ? [text(`a${i}`)] : []),
              ...(e.kind === 'empty'
                ? []
                : e.calls.map((id) => ({ type: 'tool_use', id, name: 'x', input: {} }))),
            ],
          },
        };
      case 'result':
        return {
          type: 'user',
          ...link,
          message: {
            role: 'user',
            content: e.calls.map((id) => ({ type: 'tool_result', tool_use_id: id, content: 'r' })),
          },
        };
      default:
        return { type: 'progress', ...link };
    }
  });

const messageLines = (records: Rec[]): number[] =>
  records.flatMap((r, i) =>
    r.type === 'message' || r.type === 'user' || r.type === 'assistant' ? [i + 1] : [],
  );

const expectAccepted = (result: FileImport, records: Rec[]): void => {
  for (const c of result.conversations) {
    const { session, failures } = commitConversation(c);
    expect(failures).toEqual([]);
    expect(treeProblems(session)).toEqual([]);
    expect(session.state.tip).toBe(c.tip);
  }
  const covered = new Set(result.conversations.flatMap((c) => c.turns.flatMap((t) => t.lines)));
  const reported = new Set(result.report.skipped.map((s) => s.line));
  expect(messageLines(records).filter((l) => !covered.has(l) && !reported.has(l))).toEqual([]);
};

describe('importer output is always committable', () => {
  it('for random pi session trees', () => {
    fc.assert(
      fc.property(fc.array(entry, { minLength: 1, maxLength: 40 }), (entries) => {
        const records = piFile(entries);
        expectAccepted(importPi('p.jsonl', jsonl(records)), records);
      }),
      { numRuns: 300 },
    );
  });

  it('for random Claude Code record trees', () => {
    fc.assert(
      fc.property(fc.array(entry, { minLength: 1, maxLength: 40 }), (entries) => {
        const records = ccFile(entries);
        expectAccepted(importClaudeCode('c.jsonl', jsonl(records)), records);
      }),
      { numRuns: 300 },
    );
  });
});

/** A well-formed linear pi session, some of whose tool results were lost (an interrupt). */
const roundArb = fc.record({
  calls: fc.integer({ min: 1, max: 3 }),
  lost: fc.nat(),
  loseOne: fc.boolean(),
  withText: fc.boolean(),
});
const turnArb = fc.array(roundArb, { maxLength: 3 });

describe('repairs lose only what the file broke', () => {
  it('a lost tool result costs exactly its call, and nothing else', () => {
    fc.assert(
      fc.property(fc.array(turnArb, { minLength: 1, maxLength: 6 }), (turns) => {
        const records: Rec[] = [{ type: 'session', id: 's', timestamp: 't', cwd: '/' }];
        const push = (message: Rec) => records.push({ type: 'message', message });
        let n = 0;
        let lost = 0;
        const emptied: number[] = [];
        for (const rounds of turns) {
          push({ role: 'user', content: [text(`q${n}`)] });
          for (const round of rounds) {
            const ids = Array.from({ length: round.calls }, () => `c${++n}`);
            const gone = round.loseOne ? ids[round.lost % ids.length] : undefined;
            push({
              role: 'assistant',
              content: [
                ...(round.withText ? [text('working')] : []),
                ...ids.map((id) => ({ type: 'toolCall', id, name: 'x', arguments: {} })),
              ],
            });
            if (gone !== undefined) {
              lost++;
              if (!round.withText && ids.length === 1) emptied.push(records.length);
            }
            for (const id of ids)
              if (id !== gone) push({ role: 'toolResult', toolCallId: id, content: [text('r')] });
          }
          push({ role: 'assistant', content: [text(`answer ${n}`)] });
        }
        const result = importPi('p.jsonl', jsonl(records));
        const dropped = result.report.skipped.filter(
          (s) => s.reason === 'tool_use without its tool_result',
        );
        expect(dropped).toHaveLength(lost);
        // Only the assistant messages left empty by the repair are not imported.
        const covered = new Set(
          result.conversations.flatMap((c) => c.turns.flatMap((t) => t.lines)),
        );
        const missing = messageLines(records).filter((l) => !covered.has(l));
        expect(missing).toEqual(emptied);
        expect(result.conversations).toHaveLength(1);
        expect(result.report.turns).toBe(turns.length);
      }),
      { numRuns: 300 },
    );
  });
});
