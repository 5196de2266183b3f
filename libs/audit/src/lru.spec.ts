import { createLru } from './lru';

describe('createLru', () => {
  it('forgets the least recently used key beyond its capacity', () => {
    const lru = createLru<string, number>(2);
    lru.set('a', 1);
    lru.set('b', 2);
    expect(lru.get('a')).toBe(1); // a is now the most recent
    lru.set('c', 3);
    expect(lru.get('b')).toBeUndefined();
    expect(lru.get('a')).toBe(1);
    expect(lru.get('c')).toBe(3);
    expect(lru.size).toBe(2);
  });

  it('replaces and deletes', () => {
    const lru = createLru<string, number>(2);
    lru.set('a', 1);
    lru.set('a', 2);
    expect(lru.size).toBe(1);
    expect(lru.get('a')).toBe(2);
    lru.delete('a');
    expect(lru.get('a')).toBeUndefined();
  });

  it('refuses a capacity below 1', () => {
    expect(() => createLru(0)).toThrow(RangeError);
  });
});
