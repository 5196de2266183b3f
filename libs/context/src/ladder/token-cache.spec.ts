import { createLru, createTokenCache } from './token-cache';

describe('createLru', () => {
  it('forgets the least recently used entry beyond its size', () => {
    const lru = createLru<number>(2);
    lru.set('a', 1);
    lru.set('b', 2);
    expect(lru.get('a')).toBe(1); // a is now the most recent
    lru.set('c', 3);
    expect(lru.get('b')).toBeUndefined();
    expect(lru.get('a')).toBe(1);
    expect(lru.get('c')).toBe(3);
    expect(lru.size).toBe(2);
  });

  it('refuses a size below one', () => {
    expect(() => createLru(0)).toThrow(RangeError);
  });

  it('makes a cache of item stats and of numbers', () => {
    const cache = createTokenCache(10);
    cache.numbers.set('x', 4);
    expect(cache.numbers.get('x')).toBe(4);
    expect(cache.items.size).toBe(0);
  });
});
