/** Repairs what the file broke, so every path is a transcript providers accept (README.md). */
import { type Node, type NodeGraph, toolResultIds, toolUseIds } from './nodes';
import { type Notes } from './notes';

const nameOf = (n: Node, id: string): string => {
  for (const it of n.items)
    if (it.block.type === 'tool_use' && it.block.id === id) return it.block.name;
  return '?';
};

export const dropBrokenPairs = (graph: NodeGraph, notes: Notes): void => {
  const { nodes } = graph;
  for (const n of nodes.values()) {
    if (n.kind !== 'assistant') continue;
    const results = nodes.get(`r:${n.key}`);
    const answered = new Set(results ? toolResultIds(results.items) : []);
    n.items = n.items.filter((it) => {
      if (it.block.type !== 'tool_use' || answered.has(it.block.id)) return true;
      notes.skip(
        it.line,
        'tool_use without its tool_result',
        `${it.block.id} (${nameOf(n, it.block.id)})`,
      );
      return false;
    });
  }
  for (const n of nodes.values()) {
    if (n.role !== 'user') continue;
    const call = n.kind === 'results' ? nodes.get(n.key.slice(2)) : undefined;
    const calls = new Set(call ? toolUseIds(call.items) : []);
    const seen = new Set<string>();
    n.items = n.items.filter((it) => {
      if (it.block.type !== 'tool_result') return true;
      const id = it.block.tool_use_id;
      const duplicate = seen.has(id);
      seen.add(id);
      if (!calls.has(id)) notes.skip(it.line, 'tool_result without its tool_use', id);
      else if (duplicate) notes.skip(it.line, 'tool_result answering a call already answered', id);
      return calls.has(id) && !duplicate;
    });
  }
};

export const isEmpty = (n: Node): boolean => n.items.length === 0 || n.mergedInto !== undefined;

export const isFinal = (n: Node): boolean =>
  n.kind === 'assistant' && !isEmpty(n) && toolUseIds(n.items).length === 0;

/** The node a node hangs on, skipping empty nodes and following merges. */
export const effectiveParent = (graph: NodeGraph, n: Node): Node | null => {
  let k = n.parentKey;
  for (let steps = 0; steps <= graph.nodes.size; steps++) {
    let p = k === null ? undefined : graph.nodes.get(k);
    while (p?.mergedInto !== undefined) p = graph.nodes.get(p.mergedInto);
    if (p === undefined) return null;
    if (!isEmpty(p)) return p;
    k = p.parentKey;
  }
  return null; // a loop of empty nodes
};

export const noteEmptyNodes = (graph: NodeGraph, notes: Notes): void => {
  for (const n of graph.nodes.values()) {
    if (n.items.length > 0) continue;
    for (const line of n.lines)
      notes.skip(
        line,
        `${n.role} message with nothing left to import (empty or only dropped blocks)`,
      );
  }
};

const effectiveChildren = (graph: NodeGraph): Map<string, Node[]> => {
  const out = new Map<string, Node[]>();
  for (const n of graph.nodes.values()) {
    if (isEmpty(n)) continue;
    const p = effectiveParent(graph, n);
    if (p === null) continue;
    const list = out.get(p.key);
    if (list) list.push(n);
    else out.set(p.key, [n]);
  }
  return out;
};

export const mergeAssistantRuns = (graph: NodeGraph, notes: Notes): void => {
  for (let changed = true; changed;) {
    changed = false;
    const children = effectiveChildren(graph);
    for (const y of graph.nodes.values()) {
      if (y.kind !== 'assistant' || isEmpty(y)) continue;
      const x = effectiveParent(graph, y);
      if (x === null || !isFinal(x) || (children.get(x.key) ?? []).length !== 1) continue;
      x.items.push(...y.items);
      x.lines.push(...y.lines);
      if (y.usage !== undefined) x.usage = y.usage;
      y.items = [];
      y.mergedInto = x.key;
      for (const line of y.lines)
        notes.change(line, 'assistant message merged into the one before it', `line ${x.lines[0]}`);
      changed = true;
      break;
    }
  }
};
