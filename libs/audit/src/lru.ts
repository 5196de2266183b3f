/** A bounded map that forgets the least recently used key first. Map keeps insertion order. */
export interface Lru<K, V> {
  get(key: K): V | undefined;
  set(key: K, value: V): void;
  delete(key: K): void;
  readonly size: number;
}

export const createLru = <K, V>(capacity: number): Lru<K, V> => {
  if (!Number.isInteger(capacity) || capacity < 1) {
    throw new RangeError('an LRU needs a capacity of at least 1');
  }
  const map = new Map<K, V>();
  return {
    get: (key) => {
      const value = map.get(key);
      if (value === undefined) return undefined;
      map.delete(key);
      map.set(key, value);
      return value;
    },
    set: (key, value) => {
      map.delete(key);
      map.set(key, value);
      if (map.size > capacity) map.delete(map.keys().next().value as K);
    },
    delete: (key) => {
      map.delete(key);
    },
    get size() {
      return map.size;
    },
  };
};
