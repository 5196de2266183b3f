import fc from 'fast-check';
import {
  hashString,
  pmapEmpty,
  pmapEntries,
  pmapFrom,
  pmapGet,
  pmapHas,
  pmapSet,
  type PMap,
} from './persistent-map';

const snapshot = <V>(map: PMap<V>): [string, V][] =>
  Array.from(pmapEntries(map)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

describe('persistent map', () => {
  it('behaves like a Map for any sequence of sets, and never changes earlier versions', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.string({ maxLength: 6 }), fc.integer()), { maxLength: 200 }),
        (ops) => {
          const model = new Map<string, number>();
          let map = pmapEmpty<number>();
          const versions: { map: PMap<number>; expected: [string, number][] }[] = [];
          for (const [k, v] of ops) {
            map = pmapSet(map, k, v);
            model.set(k, v);
            versions.push({
              map,
              expected: [...model.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
            });
          }
          expect(map.size).toBe(model.size);
          for (const [k, v] of model) {
            expect(pmapGet(map, k)).toBe(v);
            expect(pmapHas(map, k)).toBe(true);
          }
          for (const { map: old, expected } of versions) expect(snapshot(old)).toEqual(expected);
        },
      ),
    );
  });

  it('keeps colliding keys apart', () => {
    // A 32-bit FNV-1a collision, found offline by brute force.
    const pair = ['id43zx', 'idbpad'];
    expect(hashString(pair[0])).toBe(hashString(pair[1]));
    const [a, b] = pair;
    const map = pmapFrom([
      [a, 1],
      [b, 2],
      ['other', 3],
    ]);
    expect(pmapGet(map, a)).toBe(1);
    expect(pmapGet(map, b)).toBe(2);
    expect(map.size).toBe(3);
    const updated = pmapSet(map, b, 20);
    expect(pmapGet(updated, b)).toBe(20);
    expect(pmapGet(map, b)).toBe(2);
    expect(updated.size).toBe(3);
  });

  it('misses cleanly', () => {
    const map = pmapFrom([['a', 1]]);
    expect(pmapGet(map, 'b')).toBeUndefined();
    expect(pmapHas(map, 'b')).toBe(false);
    expect(pmapHas(pmapEmpty(), 'a')).toBe(false);
  });

  it('pmapFrom builds the very trie that setting the entries one by one builds (duplicates: the last wins)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.string({ maxLength: 6 }), fc.integer()), { maxLength: 300 }),
        (entries) => {
          let bySet: PMap<number> = pmapEmpty();
          for (const [k, v] of entries) bySet = pmapSet(bySet, k, v);
          expect(JSON.stringify(pmapFrom(entries))).toBe(JSON.stringify(bySet));
        },
      ),
      { numRuns: 200 },
    );
  });
});
