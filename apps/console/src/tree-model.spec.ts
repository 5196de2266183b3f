import fc from 'fast-check';
import { type Tree } from './api';
import { compareBranches, indexTree, pathToRoot, treeRows } from './tree-model';

/** A random tree: node i > 0 hangs under a random earlier node; a random tip. */
const trees = fc
  .array(fc.nat(), { minLength: 1, maxLength: 80 })
  .chain((parents) =>
    fc.record({
      parents: fc.constant(parents),
      tip: fc.nat({ max: parents.length - 1 }),
      pinned: fc.uniqueArray(fc.nat({ max: parents.length - 1 }), { maxLength: 5 }),
      minRun: fc.integer({ min: 2, max: 8 }),
    }),
  )
  .map(({ parents, tip, pinned, minRun }) => {
    const ids = parents.map((_, i) => `m${i}`);
    const nodes = ids.map((id, i) => ({
      id,
      parentId: i === 0 ? null : ids[parents[i] % i],
      role: i % 2 === 0 ? ('user' as const) : ('assistant' as const),
      children: [] as string[],
    }));
    for (const n of nodes) if (n.parentId) nodes[Number(n.parentId.slice(1))].children.push(n.id);
    const tree: Tree = { tip: ids[tip], nodes, branchPoints: [], checkpoints: [] };
    return { tree, pinned: new Set(pinned.map((p) => ids[p])), minRun };
  });

describe('tree-model', () => {
  it('draws every message exactly once, as a row or inside a fold; pinned ones never fold', () => {
    fc.assert(
      fc.property(trees, ({ tree, pinned, minRun }) => {
        const ix = indexTree(tree);
        const rows = treeRows(ix, { minRun, keep: 1, pinned, open: new Set() });
        const drawn = rows.flatMap((r) => (r.kind === 'node' ? [r.id] : r.ids));
        expect([...drawn].sort()).toEqual(tree.nodes.map((n) => n.id).sort());
        const folded = new Set(rows.flatMap((r) => (r.kind === 'fold' ? r.ids : [])));
        for (const p of pinned) expect(folded.has(p)).toBe(false);
        for (const r of rows) if (r.kind === 'node') expect(r.active).toBe(ix.active.has(r.id));
        // Every fold, once opened, draws its messages as rows.
        const open = new Set(rows.flatMap((r) => (r.kind === 'fold' ? [r.key] : [])));
        const all = treeRows(ix, { minRun, keep: 1, pinned, open });
        expect(all.every((r) => r.kind === 'node')).toBe(true);
        expect(all).toHaveLength(tree.nodes.length);
      }),
    );
  });

  it('the active branch is the tip’s path to the root; two branches meet at their last common node', () => {
    fc.assert(
      fc.property(trees, fc.nat(), ({ tree }, pick) => {
        const ix = indexTree(tree);
        expect(ix.activePath).toEqual(pathToRoot(ix.byId, tree.tip).reverse());
        expect(ix.activePath[0]).toBe('m0');
        const other = tree.nodes[pick % tree.nodes.length].id;
        const c = compareBranches(ix.byId, tree.tip!, other);
        const up = (id: string) => pathToRoot(ix.byId, id).reverse();
        const a = up(tree.tip!);
        const b = up(other);
        expect(c.ancestor).not.toBeNull();
        expect([...a.slice(0, a.length - c.left.length)]).toEqual(
          b.slice(0, b.length - c.right.length),
        );
        expect(a[a.length - c.left.length - 1]).toBe(c.ancestor);
        if (c.left.length > 0 && c.right.length > 0) expect(c.left[0]).not.toBe(c.right[0]);
      }),
    );
  });
});
