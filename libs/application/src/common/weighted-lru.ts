/**
 * A least-recently-used cache bounded by total weight (e.g. messages held), so memory stays
 * bounded however many conversations are touched.
 */
export interface WeightedLru<V> {
  get(key: string): V | undefined;
  set(key: string, value: V, weight: number): void;
  delete(key: string): void;
  readonly size: number;
  readonly weight: number;
}

export const createWeightedLru = <V>(maxWeight: number): WeightedLru<V> => {
  const entries = new Map<string, { value: V; weight: number }>();
  let total = 0;
  const remove = (key: string): void => {
    const e = entries.get(key);
    if (!e) return;
    entries.delete(key);
    total -= e.weight;
  };
  return {
    get(key) {
      const e = entries.get(key);
      if (!e) return undefined;
      entries.delete(key);
      entries.set(key, e);
      return e.value;
    },
    set(key, value, weight) {
      remove(key);
      entries.set(key, { value, weight });
      total += weight;
      for (const k of entries.keys()) {
        if (total <= maxWeight || entries.size <= 1) break;
        remove(k);
      }
    },
    delete: remove,
    get size() {
      return entries.size;
    },
    get weight() {
      return total;
    },
  };
};
