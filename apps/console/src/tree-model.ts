/**
 * The tree as rows to draw: pure functions over the API's tree answer, so the view only renders.
 * The active branch runs down the left; each side branch hangs under its branch point, one level
 * in; long linear runs fold into one row.
 */
import { type Checkpoint, type Tree, type TreeNode } from './api';

export type Row =
  | { kind: 'node'; id: string; depth: number; active: boolean; sideOf?: string }
  | { kind: 'fold'; key: string; ids: string[]; depth: number; active: boolean };

export interface TreeIndex {
  byId: Map<string, TreeNode>;
  roots: TreeNode[];
  active: Set<string>;
  /** Root → tip. */
  activePath: string[];
}

export const indexTree = (tree: Pick<Tree, 'nodes' | 'tip'>): TreeIndex => {
  const byId = new Map(tree.nodes.map((n) => [n.id, n]));
  const roots = tree.nodes.filter((n) => n.parentId === null || !byId.has(n.parentId));
  const activePath = pathToRoot(byId, tree.tip).reverse();
  return { byId, roots, active: new Set(activePath), activePath };
};

/** tip → root (the node itself first). Stops on a cycle rather than spinning. */
export const pathToRoot = (byId: Map<string, TreeNode>, id: string | null): string[] => {
  const out: string[] = [];
  const seen = new Set<string>();
  for (let at = id; at !== null && !seen.has(at); at = byId.get(at)?.parentId ?? null) {
    if (!byId.has(at)) break;
    seen.add(at);
    out.push(at);
  }
  return out;
};

/** Where two nodes' paths meet, and each side from there (excluding the ancestor). */
export const compareBranches = (
  byId: Map<string, TreeNode>,
  a: string,
  b: string,
): { ancestor: string | null; left: string[]; right: string[] } => {
  const pa = pathToRoot(byId, a).reverse();
  const pb = pathToRoot(byId, b).reverse();
  let i = 0;
  while (i < pa.length && i < pb.length && pa[i] === pb[i]) i++;
  return { ancestor: i > 0 ? pa[i - 1] : null, left: pa.slice(i), right: pb.slice(i) };
};

export interface FoldOptions {
  /** Runs longer than this fold (keeping `keep` nodes visible at each end). */
  minRun: number;
  keep: number;
  /** Nodes that never fold (tip, checkpoints, compaction edges, the selection). */
  pinned: Set<string>;
  /** Fold keys the user opened. */
  open: Set<string>;
}

export const DEFAULT_FOLD = { minRun: 12, keep: 2 };

/**
 * Rows in drawing order. Iterative (a 10,000-deep chain must not overflow the stack). The child
 * followed down a chain is the one on the active branch, else the last (newest) one.
 */
export const treeRows = (ix: TreeIndex, fold: FoldOptions): Row[] => {
  const rows: Row[] = [];
  // Each stack entry is a chain to draw, from its first node, at a depth.
  const stack: { start: string; depth: number; sideOf?: string }[] = [];
  for (let r = ix.roots.length - 1; r >= 0; r--) stack.push({ start: ix.roots[r].id, depth: 0 });
  const seen = new Set<string>();
  while (stack.length > 0) {
    const { start, depth, sideOf } = stack.pop()!;
    let run: string[] = [];
    const pending: { start: string; depth: number; sideOf: string }[] = [];
    const flush = () => {
      const active = run.length > 0 && ix.active.has(run[0]);
      const key = `${run[0] ?? ''}…${run[run.length - 1] ?? ''}`;
      if (run.length > fold.minRun && !fold.open.has(key)) {
        const head = run.slice(0, fold.keep);
        const tail = run.slice(run.length - fold.keep);
        for (const id of head) rows.push({ kind: 'node', id, depth, active: ix.active.has(id) });
        rows.push({
          kind: 'fold',
          key,
          ids: run.slice(fold.keep, run.length - fold.keep),
          depth,
          active,
        });
        for (const id of tail) rows.push({ kind: 'node', id, depth, active: ix.active.has(id) });
      } else {
        for (const id of run) rows.push({ kind: 'node', id, depth, active: ix.active.has(id) });
      }
      run = [];
    };
    let at: string | null = start;
    let first = true;
    while (at !== null && !seen.has(at)) {
      seen.add(at);
      const node: TreeNode | undefined = ix.byId.get(at);
      if (!node) break;
      const special = fold.pinned.has(at) || node.children.length !== 1;
      if (special) {
        flush();
        rows.push({
          kind: 'node',
          id: at,
          depth,
          active: ix.active.has(at),
          ...(first && sideOf ? { sideOf } : {}),
        });
      } else if (first && sideOf) {
        rows.push({ kind: 'node', id: at, depth, active: ix.active.has(at), sideOf });
      } else {
        run.push(at);
      }
      first = false;
      if (node.children.length === 0) break;
      const next =
        node.children.find((c) => ix.active.has(c)) ?? node.children[node.children.length - 1];
      for (const c of node.children)
        if (c !== next) pending.push({ start: c, depth: depth + 1, sideOf: at });
      if (pending.length > 0) {
        // Side branches are drawn right after their branch point, before the chain goes on.
        flush();
        stack.push({ start: next, depth });
        for (let p = pending.length - 1; p >= 0; p--) stack.push(pending[p]);
        pending.length = 0;
        at = null;
        break;
      }
      at = next;
    }
    flush();
  }
  return rows;
};

/** Checkpoint labels by message id. */
export const checkpointsByMessage = (cps: readonly Checkpoint[]): Map<string, Checkpoint[]> => {
  const m = new Map<string, Checkpoint[]>();
  for (const c of cps) m.set(c.messageId, [...(m.get(c.messageId) ?? []), c]);
  return m;
};
