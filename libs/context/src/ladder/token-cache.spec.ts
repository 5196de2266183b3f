import { createLru, createPageCache, createTokenCache } from './token-cache';

describe('createLru', () => {
  it('keeps what is used and forgets what is not, within its bound', () => {
    const lru = createLru<number>(4);
    lru.set('a', 1);
    lru.set('b', 2);
    lru.set('c', 3);
    expect(lru.get('a')).toBe(1); // used again: the most recent
    lru.set('d', 4);
    lru.set('e', 5); // b is the least recently used
    expect(lru.get('b')).toBeUndefined();
    expect(lru.get('a')).toBe(1);
    expect(lru.get('e')).toBe(5);
    expect(lru.size).toBeLessThanOrEqual(4);
  });

  it('never holds more than its bound', () => {
    const lru = createLru<number>(10);
    for (let i = 0; i < 1000; i++) {
      lru.set(`k${i}`, i);
      lru.get(`k${i % 7}`);
    }
    expect(lru.size).toBeLessThanOrEqual(10);
    expect(lru.get('k999')).toBe(999);
  });

  it('refuses a size below one', () => {
    expect(() => createLru(0)).toThrow(RangeError);
  });

  it('makes a cache of item stats per scope and of numbers', () => {
    const cache = createTokenCache(10);
    cache.numbers.set('x', 4);
    expect(cache.numbers.get('x')).toBe(4);
    const a = cache.scope('conv|anthropic|claude');
    expect(cache.scope('conv|anthropic|claude')).toBe(a);
    expect(cache.scope('conv|gemini|gemini-2.5-pro')).not.toBe(a);
  });

  it('starts a scope over when it outgrows its bound', () => {
    const cache = createTokenCache(3);
    const a = cache.scope('s');
    for (const k of ['1', '2', '3', '4']) a.set(k, {} as never);
    const b = cache.scope('s');
    expect(b).not.toBe(a);
    expect(b.size).toBe(0);
  });
});

describe('createPageCache', () => {
  const pages = (n: number, size: number) => Array.from({ length: n }, () => Buffer.alloc(size));

  it('keeps pages until their bytes pass the bound, dropping the least recently used', () => {
    const cache = createPageCache(1000);
    cache.set('a', pages(2, 300));
    cache.set('b', pages(1, 300));
    expect(cache.get('a')).toHaveLength(2); // a is now the most recent
    cache.set('c', pages(1, 300)); // 1200 > 1000: b goes
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toHaveLength(2);
    expect(cache.get('c')).toHaveLength(1);
    expect(cache.bytes).toBe(900);
  });

  it('does not keep an entry bigger than the whole bound', () => {
    const cache = createPageCache(100);
    cache.set('huge', pages(1, 101));
    expect(cache.get('huge')).toBeUndefined();
    expect(cache.bytes).toBe(0);
  });
});
