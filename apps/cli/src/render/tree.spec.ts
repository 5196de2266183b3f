import { renderTree } from './tree';
import { sample } from './testing';

const options = { fullIds: false, expand: false, width: 40 };

describe('renderTree', () => {
  it('draws the active branch on the left, side branches indented, long runs folded', () => {
    const { conversation, tree, messages } = sample();
    const lines = renderTree(conversation, tree, messages, options).split('\n');
    expect(lines[0]).toBe('conv-1 "A <b>title</b>"');
    expect(lines[1]).toContain(
      '23 messages · 11 turns · 1 branch point(s) · 2 checkpoint(s) · tip u20',
    );
    const body = lines.slice(3).filter((l) => l !== '');
    expect(body).toEqual([
      '* U u1        first <question>',
      '* A a1        answer  → Bash  ⑂ 2',
      '  │ U u2        side prompt',
      '  │ A a2        side answer  [old: dropped]',
      '* U u3        ← 1 tool result  go on',
      '* A a3        step 3',
      '* ⋮ 14 messages',
      '* U u18       step 18',
      '* A a19       step 19',
      '* U u20       step 20  [done] ◀ tip',
    ]);
  });

  it('shows every message with --expand, and whole ids with --full-ids', () => {
    const { conversation, tree, messages } = sample();
    const text = renderTree(conversation, tree, messages, {
      ...options,
      expand: true,
      fullIds: true,
    });
    expect(text).not.toContain('⋮');
    for (const m of messages) expect(text).toContain(` ${m.id} `);
  });

  it('puts the active child last whichever order the children come in', () => {
    const { conversation, tree, messages } = sample();
    const a1 = tree.nodes.find((n) => n.id === 'a1');
    if (a1 === undefined) throw new Error('no a1');
    a1.children.reverse(); // u3 (active) first now
    const lines = renderTree(conversation, tree, messages, options).split('\n');
    expect(lines.findIndex((l) => l.includes(' u2 '))).toBeLessThan(
      lines.findIndex((l) => l.includes(' u3 ')),
    );
    expect(lines.find((l) => l.includes(' u2 '))?.startsWith('  │ ')).toBe(true);
  });

  it('marks no active branch when the tip is elsewhere (a side branch is the continuation)', () => {
    const { conversation, tree, messages } = sample();
    tree.tip = 'a2';
    const lines = renderTree(conversation, tree, messages, options).split('\n');
    expect(lines.find((l) => / A a2 /.test(l))).toMatch(/^\* A a2 .*◀ tip/);
    expect(lines.find((l) => / U u3 /.test(l))).toMatch(/^ {2}│ U u3/);
  });
});
