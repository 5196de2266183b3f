/** Hash array mapped trie: old states stay valid, `evolve` costs O(log32 n) per event. */

interface Leaf<V> {
  readonly kind: 'leaf';
  readonly hash: number;
  readonly key: string;
  readonly value: V;
}

interface Collision<V> {
  readonly kind: 'collision';
  readonly hash: number;
  readonly leaves: readonly Leaf<V>[];
}

interface Branch<V> {
  readonly kind: 'branch';
  readonly bitmap: number;
  readonly children: readonly TrieNode<V>[];
}

type TrieNode<V> = Leaf<V> | Collision<V> | Branch<V>;

export interface PMap<V> {
  readonly size: number;
  readonly root: TrieNode<V> | null;
}

const BITS = 5;
const MASK = 31;

/** FNV-1a over UTF-16 code units: fast, well spread for ids. */
export const hashString = (key: string): number => {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
};

const popcount = (x: number): number => {
  let v = x - ((x >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) & 0xff;
};

const EMPTY: PMap<never> = Object.freeze({ size: 0, root: null });

export const pmapEmpty = <V>(): PMap<V> => EMPTY;

const leaf = <V>(hash: number, key: string, value: V): Leaf<V> => ({
  kind: 'leaf',
  hash,
  key,
  value,
});

const hashOf = <V>(node: Leaf<V> | Collision<V>): number => node.hash;

const merge = <V>(a: Leaf<V> | Collision<V>, b: Leaf<V>, shift: number): Branch<V> => {
  const ia = (hashOf(a) >>> shift) & MASK;
  const ib = (b.hash >>> shift) & MASK;
  if (ia === ib) {
    return { kind: 'branch', bitmap: 1 << ia, children: [merge(a, b, shift + BITS)] };
  }
  const children = ia < ib ? [a, b] : [b, a];
  return { kind: 'branch', bitmap: (1 << ia) | (1 << ib), children };
};

const replaceAt = <T>(items: readonly T[], index: number, item: T): T[] => {
  const copy = items.slice();
  copy[index] = item;
  return copy;
};

const insertAt = <T>(items: readonly T[], index: number, item: T): T[] => {
  const copy = items.slice(0, index);
  copy.push(item);
  for (let i = index; i < items.length; i++) copy.push(items[i]);
  return copy;
};

interface SetOutcome<V> {
  node: TrieNode<V>;
  added: boolean;
}

const setInLeaf = <V>(node: Leaf<V>, shift: number, entry: Leaf<V>): SetOutcome<V> => {
  if (node.key === entry.key) return { node: entry, added: false };
  if (node.hash === entry.hash) {
    return { node: { kind: 'collision', hash: node.hash, leaves: [node, entry] }, added: true };
  }
  return { node: merge(node, entry, shift), added: true };
};

const setInCollision = <V>(node: Collision<V>, shift: number, entry: Leaf<V>): SetOutcome<V> => {
  if (node.hash !== entry.hash) return { node: merge(node, entry, shift), added: true };
  const at = node.leaves.findIndex((l) => l.key === entry.key);
  if (at >= 0) {
    return { node: { ...node, leaves: replaceAt(node.leaves, at, entry) }, added: false };
  }
  return { node: { ...node, leaves: [...node.leaves, entry] }, added: true };
};

const setIn = <V>(node: TrieNode<V>, shift: number, entry: Leaf<V>): SetOutcome<V> => {
  if (node.kind === 'leaf') return setInLeaf(node, shift, entry);
  if (node.kind === 'collision') return setInCollision(node, shift, entry);
  const bit = 1 << ((entry.hash >>> shift) & MASK);
  const pos = popcount(node.bitmap & (bit - 1));
  if ((node.bitmap & bit) === 0) {
    const children = insertAt(node.children, pos, entry);
    return { node: { kind: 'branch', bitmap: node.bitmap | bit, children }, added: true };
  }
  const inner = setIn(node.children[pos], shift + BITS, entry);
  return {
    node: {
      kind: 'branch',
      bitmap: node.bitmap,
      children: replaceAt(node.children, pos, inner.node),
    },
    added: inner.added,
  };
};

export const pmapSet = <V>(map: PMap<V>, key: string, value: V): PMap<V> => {
  const entry = leaf(hashString(key), key, value);
  if (map.root === null) return { size: 1, root: entry };
  const { node, added } = setIn(map.root, 0, entry);
  return { size: added ? map.size + 1 : map.size, root: node };
};

export const pmapGet = <V>(map: PMap<V>, key: string): V | undefined => {
  const hash = hashString(key);
  let node = map.root;
  let shift = 0;
  while (node !== null) {
    if (node.kind === 'leaf') return node.key === key ? node.value : undefined;
    if (node.kind === 'collision') return node.leaves.find((l) => l.key === key)?.value;
    const bit = 1 << ((hash >>> shift) & MASK);
    if ((node.bitmap & bit) === 0) return undefined;
    node = node.children[popcount(node.bitmap & (bit - 1))];
    shift += BITS;
  }
  return undefined;
};

export const pmapHas = <V>(map: PMap<V>, key: string): boolean => {
  const hash = hashString(key);
  let node = map.root;
  let shift = 0;
  while (node !== null) {
    if (node.kind === 'leaf') return node.key === key;
    if (node.kind === 'collision') return node.leaves.some((l) => l.key === key);
    const bit = 1 << ((hash >>> shift) & MASK);
    if ((node.bitmap & bit) === 0) return false;
    node = node.children[popcount(node.bitmap & (bit - 1))];
    shift += BITS;
  }
  return false;
};

/** Entries in trie order (deterministic for a given key set, not insertion order). */
export function* pmapEntries<V>(map: PMap<V>): Generator<[string, V]> {
  if (map.root === null) return;
  const stack: TrieNode<V>[] = [map.root];
  while (stack.length > 0) {
    const node = stack.pop() as TrieNode<V>;
    if (node.kind === 'leaf') yield [node.key, node.value];
    else if (node.kind === 'collision') for (const l of node.leaves) yield [l.key, l.value];
    else for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]);
  }
}

export const pmapValues = <V>(map: PMap<V>): V[] => Array.from(pmapEntries(map), ([, v]) => v);

const build = <V>(leaves: Leaf<V>[], shift: number): TrieNode<V> => {
  if (leaves.length === 1) return leaves[0];
  const hash = leaves[0].hash;
  if (leaves.every((l) => l.hash === hash)) return { kind: 'collision', hash, leaves };
  const buckets: (Leaf<V>[] | undefined)[] = new Array<Leaf<V>[] | undefined>(32);
  let bitmap = 0;
  for (const l of leaves) {
    const index = (l.hash >>> shift) & MASK;
    const bucket = buckets[index];
    if (bucket === undefined) buckets[index] = [l];
    else bucket.push(l);
    bitmap |= 1 << index;
  }
  const children: TrieNode<V>[] = [];
  for (const bucket of buckets)
    if (bucket !== undefined) children.push(build(bucket, shift + BITS));
  return { kind: 'branch', bitmap, children };
};

const trieRank = (h: number): number =>
  (h & MASK) * 2 ** 27 +
  ((h >>> 5) & MASK) * 2 ** 22 +
  ((h >>> 10) & MASK) * 2 ** 17 +
  ((h >>> 15) & MASK) * 2 ** 12 +
  ((h >>> 20) & MASK) * 2 ** 7 +
  ((h >>> 25) & MASK) * 2 ** 2 +
  (h >>> 30);

const distinctLeaves = <V>(leaves: Leaf<V>[]): Leaf<V>[] => {
  const at = new Map<string, number>();
  const out: Leaf<V>[] = [];
  for (const l of leaves) {
    const i = at.get(l.key);
    if (i === undefined) {
      at.set(l.key, out.length);
      out.push(l);
    } else out[i] = l;
  }
  return out;
};

const buildSorted = <V>(
  leaves: Leaf<V>[],
  lo: number,
  hi: number,
  shift: number,
  size: { dropped: number },
): TrieNode<V> => {
  if (hi - lo === 1) return leaves[lo];
  const hash = leaves[lo].hash;
  if (leaves[hi - 1].hash === hash) {
    const distinct = distinctLeaves(leaves.slice(lo, hi));
    size.dropped += hi - lo - distinct.length;
    return distinct.length === 1 ? distinct[0] : { kind: 'collision', hash, leaves: distinct };
  }
  const children: TrieNode<V>[] = [];
  let bitmap = 0;
  let i = lo;
  while (i < hi) {
    const index = (leaves[i].hash >>> shift) & MASK;
    let j = i + 1;
    while (j < hi && ((leaves[j].hash >>> shift) & MASK) === index) j++;
    children.push(buildSorted(leaves, i, j, shift + BITS, size));
    bitmap |= 1 << index;
    i = j;
  }
  return { kind: 'branch', bitmap, children };
};

/** The same trie as setting entries one by one (later duplicates win), built in one pass. */
export const pmapFrom = <V>(entries: Iterable<readonly [string, V]>): PMap<V> => {
  const leaves: Leaf<V>[] = [];
  let sorted = true;
  let last = -1;
  for (const [k, v] of entries) {
    const l = leaf(hashString(k), k, v);
    if (sorted) {
      const rank = trieRank(l.hash);
      if (rank < last) sorted = false;
      last = rank;
    }
    leaves.push(l);
  }
  if (leaves.length === 0) return pmapEmpty<V>();
  if (sorted) {
    const size = { dropped: 0 };
    const root = buildSorted(leaves, 0, leaves.length, 0, size);
    return { size: leaves.length - size.dropped, root };
  }
  const byKey = new Map<string, Leaf<V>>();
  for (const l of leaves) byKey.set(l.key, l);
  const distinct = [...byKey.values()];
  return { size: distinct.length, root: build(distinct, 0) };
};
