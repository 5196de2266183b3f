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

  it('pmapFrom of entries in trie order (a stored snapshot) builds the same trie, duplicates included', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.string({ maxLength: 6 }), fc.integer()), { maxLength: 300 }),
        fc.array(fc.nat(), { maxLength: 20 }),
        (entries, dupes) => {
          let bySet: PMap<number> = pmapEmpty();
          for (const [k, v] of entries) bySet = pmapSet(bySet, k, v);
          const inTrieOrder = Array.from(pmapEntries(bySet));
          expect(JSON.stringify(pmapFrom(inTrieOrder))).toBe(JSON.stringify(bySet));
          // An entry repeated right after itself keeps the order; the later value wins.
          const repeated = inTrieOrder.slice();
          for (const d of dupes) {
            if (repeated.length === 0) break;
            const at = d % repeated.length;
            repeated.splice(at + 1, 0, [repeated[at][0], d]);
          }
          let expected: PMap<number> = pmapEmpty();
          for (const [k, v] of repeated) expected = pmapSet(expected, k, v);
          const built = pmapFrom(repeated);
          expect(built.size).toBe(expected.size);
          expect(JSON.stringify(built)).toBe(JSON.stringify(expected));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('pmapFrom keeps colliding keys apart in trie order too, a repeated one included', () => {
    const [a, b] = ['id43zx', 'idbpad']; // one FNV-1a hash (see above)
    let bySet: PMap<number> = pmapEmpty();
    for (const [k, v] of [
      [a, 1],
      ['other', 3],
      [b, 2],
    ] as const)
      bySet = pmapSet(bySet, k, v);
    const inTrieOrder = Array.from(pmapEntries(bySet));
    expect(JSON.stringify(pmapFrom(inTrieOrder))).toBe(JSON.stringify(bySet));
    const at = inTrieOrder.findIndex(([k]) => k === b);
    const repeated = [
      ...inTrieOrder.slice(0, at + 1),
      [b, 20] as [string, number],
      ...inTrieOrder.slice(at + 1),
    ];
    const built = pmapFrom(repeated);
    expect(built.size).toBe(3);
    expect(JSON.stringify(built)).toBe(JSON.stringify(pmapSet(bySet, b, 20)));
  });
});
