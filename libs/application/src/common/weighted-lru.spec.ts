import { createWeightedLru } from './weighted-lru';

describe('weighted LRU', () => {
  it('evicts the least recently used entries past the weight bound', () => {
    const lru = createWeightedLru<string>(10);
    lru.set('a', 'A', 4);
    lru.set('b', 'B', 4);
    expect(lru.get('a')).toBe('A'); // a is now the most recent
    lru.set('c', 'C', 4);
    expect(lru.get('b')).toBeUndefined();
    expect(lru.get('a')).toBe('A');
    expect(lru.get('c')).toBe('C');
    expect(lru.weight).toBe(8);
  });

  it('re-weighs an entry that is set again', () => {
    const lru = createWeightedLru<number>(10);
    lru.set('a', 1, 3);
    lru.set('a', 2, 7);
    expect(lru.weight).toBe(7);
    expect(lru.size).toBe(1);
  });

  it('keeps a single entry heavier than the bound rather than nothing', () => {
    const lru = createWeightedLru<number>(5);
    lru.set('big', 1, 50);
    expect(lru.get('big')).toBe(1);
    lru.set('x', 2, 1);
    expect(lru.get('big')).toBeUndefined();
    expect(lru.get('x')).toBe(2);
  });
});
