import { chain, text } from '../testing/conversation';
import { analyzeWindow, coverableRuns } from './window';

const call = (id: string) => ({ type: 'tool_use' as const, id, name: 'read', input: {} });
const result = (id: string) => ({ type: 'tool_result' as const, tool_use_id: id, content: 'x' });

// 0 system, 1 user(task), 2 asst(call a), 3 user(result a), 4 asst, 5 user, 6 asst(call b),
// 7 user(result b), 8 asst, 9 user (pinned), 10 asst, 11 user (current prompt), 12 asst
const messages = chain([
  { role: 'system', content: [text('rules')] },
  { role: 'user', content: [text('task')] },
  { role: 'assistant', content: [call('a')] },
  { role: 'user', content: [result('a')] },
  { role: 'assistant', content: [text('done')] },
  { role: 'user', content: [text('next')] },
  { role: 'assistant', content: [call('b')] },
  { role: 'user', content: [result('b')] },
  { role: 'assistant', content: [text('done')] },
  { role: 'user', content: [text('remember this')] },
  { role: 'assistant', content: [text('ok')] },
  { role: 'user', content: [text('now')] },
  { role: 'assistant', content: [text('sure')] },
]);
messages[9] = { ...messages[9], pinned: true };

describe('analyzeWindow', () => {
  const shape = analyzeWindow(messages);

  it('never puts a boundary between a tool call and its result', () => {
    expect(shape.boundary[3]).toBe(false);
    expect(shape.boundary[7]).toBe(false);
    expect(shape.boundary[2]).toBe(true);
    expect(shape.boundary[4]).toBe(true);
    expect(shape.boundary[13]).toBe(true);
  });

  it('marks turn starts at user prompts only, not at tool results', () => {
    const starts = shape.turnStart.flatMap((s, i) => (s ? [i] : []));
    expect(starts).toEqual([1, 5, 9, 11]);
  });

  it('heads with the system messages and the first user message', () => {
    expect(shape.headEnd).toBe(2);
  });

  it('keeps the head, system, pinned messages and the current prompt verbatim', () => {
    const kept = shape.keep.flatMap((k, i) => (k ? [i] : []));
    expect(kept).toEqual([0, 1, 9, 11]);
  });

  it('splits the coverable middle around kept messages, on unit boundaries', () => {
    expect(coverableRuns(shape, 2, 11)).toEqual([
      [2, 9],
      [10, 11],
    ]);
    expect(coverableRuns(shape, 2, 5)).toEqual([[2, 5]]);
  });

  it('has no head when the window does not open with a prompt', () => {
    expect(analyzeWindow(messages.slice(2)).headEnd).toBe(0);
  });
});
