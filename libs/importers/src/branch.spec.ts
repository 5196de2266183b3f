import { type MessageInput } from '@arbor/domain';
import { activeBranchTurns } from './branch';
import { type ImportedConversation } from './types';

const msg = (id: string, role: 'user' | 'assistant'): MessageInput => ({
  id,
  role,
  content: [{ type: 'text', text: id }],
});

const conversation = (activeBranch: string[]): ImportedConversation => ({
  title: 't',
  kind: 'main',
  turns: [
    { parentId: null, messages: [msg('a', 'user'), msg('b', 'assistant')], lines: [1, 2] },
    { parentId: 'b', messages: [msg('c', 'user'), msg('d', 'assistant')], lines: [3, 4] },
    { parentId: 'b', messages: [msg('e', 'user'), msg('f', 'assistant')], lines: [5, 6] },
  ],
  tip: activeBranch[activeBranch.length - 1] ?? null,
  activeBranch,
  branchPoints: ['b'],
  checkpoints: [],
  metadata: {},
});

describe('activeBranchTurns', () => {
  it('keeps the turns on the active branch, in order, and leaves the other branch out', () => {
    const turns = activeBranchTurns(conversation(['a', 'b', 'e', 'f']));
    expect(turns.map((t) => t.map((m) => m.id))).toEqual([
      ['a', 'b'],
      ['e', 'f'],
    ]);
  });

  it('ends inside a turn when the tip is there', () => {
    const turns = activeBranchTurns(conversation(['a', 'b', 'c']));
    expect(turns.map((t) => t.map((m) => m.id))).toEqual([['a', 'b'], ['c']]);
  });

  it('refuses a branch that names a message no turn holds', () => {
    expect(() => activeBranchTurns(conversation(['a', 'x']))).toThrow(/x/);
  });
});
