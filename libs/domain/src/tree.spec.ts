import { type Message } from './messages';
import { branchPoints, childrenIndex, forkCopy, pathFromRoot, pathToRoot } from './tree';

const parents: Record<string, string | null> = { a: null, b: 'a', c: 'b', d: 'b', e: 'd' };
const parentOf = (id: string) => parents[id];

describe('tree paths', () => {
  it('walks to the root and back', () => {
    expect(pathToRoot('e', parentOf)).toEqual(['e', 'd', 'b', 'a']);
    expect(pathFromRoot('c', parentOf)).toEqual(['a', 'b', 'c']);
    expect(pathFromRoot('a', parentOf)).toEqual(['a']);
  });

  it('answers null for unknown ids, missing ancestors and loops', () => {
    expect(pathToRoot('zz', parentOf)).toBeNull();
    expect(pathToRoot('x', (id) => ({ x: 'gone' })[id])).toBeNull();
    const loop: Record<string, string> = { p: 'q', q: 'p' };
    expect(pathToRoot('p', (id) => loop[id])).toBeNull();
  });

  it('handles very deep paths without recursion', () => {
    const depth = 200_000;
    const path = pathToRoot(`n${depth - 1}`, (id) => {
      const n = Number(id.slice(1));
      return n === 0 ? null : `n${n - 1}`;
    });
    expect(path?.length).toBe(depth);
    expect(path?.[depth - 1]).toBe('n0');
  });
});

describe('children and branch points', () => {
  const links = Object.entries(parents).map(([id, parentId]) => ({ id, parentId }));
  it('indexes children in order and finds where the tree branches', () => {
    const index = childrenIndex(links);
    expect(index.get(null)).toEqual(['a']);
    expect(index.get('b')).toEqual(['c', 'd']);
    expect(index.get('e')).toBeUndefined();
    expect(branchPoints(links)).toEqual(['b']);
  });
});

describe('forkCopy', () => {
  it('copies a path with fresh ids and remapped parents, content untouched', () => {
    const path: Message[] = ['a', 'b', 'c'].map((id, i) => ({
      id,
      parentId: i === 0 ? null : ['a', 'b'][i - 1],
      role: i % 2 === 0 ? 'user' : 'assistant',
      content: [{ type: 'text', text: id }],
      turnId: 't',
      createdAt: 'now',
    }));
    let n = 0;
    const { messages, idMap } = forkCopy(path, () => `new${++n}`);
    expect(idMap).toEqual({ a: 'new1', b: 'new2', c: 'new3' });
    expect(messages.map((m) => [m.id, m.parentId])).toEqual([
      ['new1', null],
      ['new2', 'new1'],
      ['new3', 'new2'],
    ]);
    expect(messages[2].content).toBe(path[2].content);
    expect(path[1].id).toBe('b');
  });

  it('keeps an id map safe for ids like __proto__', () => {
    const m: Message = {
      id: '__proto__',
      parentId: null,
      role: 'user',
      content: [{ type: 'text', text: 'x' }],
      turnId: 't',
      createdAt: 'now',
    };
    const { idMap } = forkCopy([m], () => 'fresh');
    expect(Object.keys(idMap)).toEqual(['__proto__']);
    expect(JSON.parse(JSON.stringify(idMap))).toEqual(idMap);
    expect(Object.getPrototypeOf(idMap)).toBe(Object.prototype);
  });
});
