/** Parallel tool calls look like forks in a file: their lines merge into one node, so no branch. */
import { type Usage } from '@arbor/domain';
import { type Item, type SourceRecord } from '../types';
import { type Notes } from './notes';

export type NodeKind = 'assistant' | 'results' | 'prompt';

export interface Node {
  key: string;
  /** The source id of its first record: the message id in Arbor. */
  id: string;
  role: 'user' | 'assistant';
  kind: NodeKind;
  lines: number[];
  items: Item[];
  parentKey: string | null;
  model?: string;
  usage?: Usage;
  sidechain: boolean;
  mergedInto?: string;
}

export interface NodeGraph {
  records: readonly SourceRecord[];
  nodes: Map<string, Node>;
  keyOfRecord(index: number): string | null;
  indexOfId(id: string): number | undefined;
}

const uniqueRecords = (records: readonly SourceRecord[], notes: Notes): SourceRecord[] => {
  const seen = new Map<string, number>();
  return records.filter((r) => {
    const first = seen.get(r.id);
    if (first !== undefined) {
      notes.skip(r.line, 'repeats the id of an earlier record', `${r.id} (line ${first})`);
      return false;
    }
    seen.set(r.id, r.line);
    return true;
  });
};

const hasToolResult = (r: SourceRecord): boolean =>
  r.message?.items.some((it) => it.block.type === 'tool_result') ?? false;

export const buildNodes = (input: readonly SourceRecord[], notes: Notes): NodeGraph => {
  const records = uniqueRecords(input, notes);
  const byId = new Map<string, number>();
  records.forEach((r, i) => byId.set(r.id, i));
  const parentIndex = (i: number): number | null => {
    const p = records[i].parentId;
    return p === null ? null : (byId.get(p) ?? null);
  };
  records.forEach((r, i) => {
    if (r.parentId !== null && parentIndex(i) === null)
      notes.change(r.line, 'parent not in the file: the record starts a root', r.parentId);
  });

  const memo = new Map<number, string | null>();
  const inProgress = new Set<number>();
  const keyOf = (start: number): string | null => {
    const chain: number[] = [];
    let i: number | null = start;
    let key: string | null = null;
    while (i !== null) {
      const known = memo.get(i);
      if (known !== undefined) {
        key = known;
        break;
      }
      if (inProgress.has(i)) break; // a parent loop: the record hangs nowhere
      inProgress.add(i);
      chain.push(i);
      if (records[i].message !== undefined) {
        key = ownKey(i);
        break;
      }
      i = parentIndex(i);
    }
    for (const j of chain) {
      inProgress.delete(j);
      if (!memo.has(j)) memo.set(j, key);
    }
    return key;
  };
  const ownKey = (i: number): string => {
    const r = records[i];
    const m = r.message as NonNullable<SourceRecord['message']>;
    if (m.role === 'assistant') return `a:${m.apiId ?? r.id}`;
    if (hasToolResult(r)) {
      const p = parentIndex(i);
      const parent = p === null ? null : keyOf(p);
      if (parent?.startsWith('a:')) return `r:${parent}`;
      if (parent?.startsWith('r:')) return parent;
    }
    return `u:${r.id}`;
  };

  const nodes = new Map<string, Node>();
  const placed = new Set<string>();
  records.forEach((r, i) => {
    const m = r.message;
    if (m === undefined) return;
    const key = keyOf(i);
    if (key === null) {
      notes.skip(r.line, 'the record is in a parent loop');
      return;
    }
    const p = parentIndex(i);
    const parentKey = p === null ? null : keyOf(p);
    let node = nodes.get(key);
    if (node === undefined) {
      const kind: NodeKind = key.startsWith('a:')
        ? 'assistant'
        : key.startsWith('r:')
          ? 'results'
          : 'prompt';
      node = {
        key,
        id: r.id,
        role: m.role,
        kind,
        lines: [],
        items: [],
        parentKey: null,
        sidechain: r.sidechain === true,
        ...(m.model !== undefined ? { model: m.model } : {}),
      };
      nodes.set(key, node);
    }
    // A node hangs where its first record (in file order) coming from outside it hangs.
    if (!placed.has(key) && parentKey !== key) {
      node.parentKey = parentKey;
      placed.add(key);
    }
    if (m.usage !== undefined) node.usage = m.usage; // the last line carries the final count
    node.lines.push(r.line);
    node.items.push(...m.items);
  });
  for (const n of nodes.values()) {
    if (n.role === 'user') n.items = toolResultsFirst(n.items);
  }
  dropLoops(nodes, notes);
  return {
    records,
    nodes,
    keyOfRecord: keyOf,
    indexOfId: (id) => byId.get(id),
  };
};

/** Nodes whose parents lead back to themselves hang nowhere: dropped (their children become roots). */
const dropLoops = (nodes: Map<string, Node>, notes: Notes): void => {
  const done = new Set<string>();
  for (const start of [...nodes.keys()]) {
    const path: string[] = [];
    const onPath = new Set<string>();
    let k: string | null = start;
    while (k !== null && !done.has(k) && nodes.has(k)) {
      if (onPath.has(k)) {
        for (const key of path.slice(path.indexOf(k))) {
          for (const line of (nodes.get(key) as Node).lines)
            notes.skip(line, 'the record is in a parent loop');
          nodes.delete(key);
        }
        break;
      }
      onPath.add(k);
      path.push(k);
      k = (nodes.get(k) as Node).parentKey;
    }
    for (const key of path) done.add(key);
  }
};

/** Providers want a user message's tool_result blocks before anything else. */
export const toolResultsFirst = (items: readonly Item[]): Item[] => [
  ...items.filter((it) => it.block.type === 'tool_result'),
  ...items.filter((it) => it.block.type !== 'tool_result'),
];

export const toolUseIds = (items: readonly Item[]): string[] =>
  items.flatMap((it) => (it.block.type === 'tool_use' ? [it.block.id] : []));

export const toolResultIds = (items: readonly Item[]): string[] =>
  items.flatMap((it) => (it.block.type === 'tool_result' ? [it.block.tool_use_id] : []));
