// Nodes → turns → conversations (README.md). A branch inside a turn cannot be an Arbor branch
// (turns hang on turn ends), so the shared prefix is copied under new ids.
import { checkTurn, type MessageInput } from '@arbor/domain';
import { type ImportedTurn, type Item } from '../types';
import { type Node, type NodeGraph, toolResultIds, toolResultsFirst, toolUseIds } from './nodes';
import { type Notes } from './notes';
import { effectiveParent, isEmpty, isFinal } from './repair';
import { sanitizeMessage } from './sanitize';

export const SYNTHETIC_PROMPT_ID = 'synthetic-prompt';
const SYNTHETIC_TEXT = '(the prompt of this transcript is not in the file)';

interface BuiltTurn {
  final: Node;
  /** One entry per message: the nodes merged into it. Empty first group: synthetic prompt. */
  groups: Node[][];
  parent: Node | null;
  synthetic: boolean;
}

type TurnOrReason = BuiltTurn | { reason: string; nodes: Node[] };

const pathTo = (graph: NodeGraph, final: Node): { path: Node[]; parent: Node | null } => {
  // Walked tip → root and reversed once (unshift would copy the path at every step).
  const path: Node[] = [final];
  let parent = effectiveParent(graph, final);
  while (parent !== null && !isFinal(parent) && path.length <= graph.nodes.size) {
    path.push(parent);
    parent = effectiveParent(graph, parent);
  }
  return { path: path.reverse(), parent };
};

const sameIds = (a: string[], b: string[]): boolean =>
  a.length === b.length && [...a].sort().join('\n') === [...b].sort().join('\n');

const turnOf = (graph: NodeGraph, final: Node): TurnOrReason => {
  const { path, parent } = pathTo(graph, final);
  const synthetic = path[0].role === 'assistant' && parent === null;
  if (path[0].role === 'assistant' && !synthetic)
    return {
      reason: 'an assistant message follows a final answer with no prompt between',
      nodes: path,
    };
  const groups: Node[][] = synthetic ? [[]] : [];
  for (const n of path) {
    const last = groups[groups.length - 1];
    if (last !== undefined && last.length > 0 && last[0].role === n.role) last.push(n);
    else groups.push([n]);
  }
  for (let i = 1; i < groups.length; i += 2) {
    if (groups[i].length > 1) return { reason: 'two assistant messages in a row', nodes: path };
    if (i === groups.length - 1) break;
    const calls = toolUseIds(groups[i][0].items);
    const results = groups[i + 1].flatMap((n) => toolResultIds(n.items));
    if (calls.length === 0 || !sameIds(calls, results))
      return { reason: 'tool calls and results do not pair', nodes: path };
  }
  return { final, groups, parent, synthetic };
};

const itemsOf = (group: Node[]): Item[] => {
  const items = group.flatMap((n) => n.items);
  return group[0]?.role === 'user' ? toolResultsFirst(items) : items;
};

const toInput = (group: Node[], id: string): MessageInput => {
  if (group.length === 0)
    return { id, role: 'user', content: [{ type: 'text', text: SYNTHETIC_TEXT }] };
  const n = group[0];
  return {
    id,
    role: n.role,
    content: itemsOf(group).map((it) => it.block),
    ...(n.role === 'assistant' && n.model !== undefined ? { model: n.model } : {}),
    ...(n.role === 'assistant' && n.usage !== undefined ? { usage: n.usage } : {}),
  };
};

export interface CoreConversation {
  sidechain: boolean;
  firstLine: number;
  turns: ImportedTurn[];
  tip: string | null;
  activeBranch: string[];
  branchPoints: string[];
  turnEndIdOf(recordId: string): string | undefined;
}

export interface BuildOptions {
  maxImageBytes?: number;
}

interface Ctx {
  graph: NodeGraph;
  notes: Notes;
  options: BuildOptions;
  failed: Map<string, { reason: string; detail?: string }>;
  covered: Set<number>;
}

const fail = (ctx: Ctx, nodes: readonly Node[], reason: string, detail?: string): void => {
  for (const n of nodes) if (!ctx.failed.has(n.key)) ctx.failed.set(n.key, { reason, detail });
};

/** A branch of the file stopped on tool results: the turn ends there, on the answered results. */
const openEnds = (graph: NodeGraph): Node[] => {
  const hasChildren = new Set<string>();
  for (const n of graph.nodes.values()) {
    if (isEmpty(n)) continue;
    const p = effectiveParent(graph, n);
    if (p !== null) hasChildren.add(p.key);
  }
  const answersCalls = (leaf: Node): boolean => {
    for (let n: Node | null = leaf; n !== null && n.role === 'user'; n = effectiveParent(graph, n))
      if (n.kind === 'results') return true;
    return false;
  };
  return [...graph.nodes.values()].filter(
    (n) => n.role === 'user' && !isEmpty(n) && !hasChildren.has(n.key) && answersCalls(n),
  );
};

const buildTurns = (ctx: Ctx): Map<string, BuiltTurn> => {
  const built = new Map<string, BuiltTurn>();
  const finals = [...ctx.graph.nodes.values()]
    .filter(isFinal)
    .concat(openEnds(ctx.graph))
    .sort((a, b) => a.lines[0] - b.lines[0]);
  for (const f of finals) {
    const t = turnOf(ctx.graph, f);
    if ('reason' in t) fail(ctx, t.nodes, `turn skipped: ${t.reason}`);
    else built.set(f.key, t);
  }
  return built;
};

/** A record inside a turn belongs to the turn ending below it, so the file resumes there. */
const nearestFinal = (ctx: Ctx, built: Map<string, BuiltTurn>) => {
  const memo = new Map<string, string | null>();
  const turnOfNode = new Map<string, string>();
  for (const [finalKey, t] of built)
    for (const n of t.groups.flat()) {
      const seen = turnOfNode.get(n.key);
      const seenLine = seen === undefined ? -1 : (built.get(seen) as BuiltTurn).final.lines[0];
      if (t.final.lines[0] > seenLine) turnOfNode.set(n.key, finalKey);
    }
  return (start: string): string | null => {
    const chain: string[] = [];
    let key: string | null = start;
    let found: string | null = null;
    while (key !== null && chain.length <= ctx.graph.nodes.size) {
      const known = memo.get(key);
      if (known !== undefined) {
        found = known;
        break;
      }
      chain.push(key);
      let n = ctx.graph.nodes.get(key);
      while (n?.mergedInto !== undefined) n = ctx.graph.nodes.get(n.mergedInto);
      if (n === undefined) break;
      const inTurn = turnOfNode.get(n.key);
      if (inTurn !== undefined) {
        found = inTurn;
        break;
      }
      key = n.parentKey;
    }
    for (const k of chain) memo.set(k, found);
    return found;
  };
};

interface Assembly {
  ctx: Ctx;
  built: Map<string, BuiltTurn>;
  childTurns: Map<string | null, string[]>;
}

/** Memoized: asked once per record, an unmemoized walk is quadratic on a linear chain. */
const rootsOf = (a: Assembly) => {
  const memo = new Map<string, string>();
  return (finalKey: string): string => {
    const walked: string[] = [];
    let k = finalKey;
    let root: string | undefined;
    for (let steps = 0; steps <= a.built.size; steps++) {
      root = memo.get(k);
      if (root !== undefined) break;
      walked.push(k);
      const p = a.built.get(k)?.parent?.key;
      if (p === undefined || !a.built.has(p)) {
        root = k;
        break;
      }
      k = p;
    }
    const found = root ?? k;
    for (const w of walked) memo.set(w, found);
    return found;
  };
};

/** The final each root's conversation must end on: the last record of the file under it. */
const tipsByRoot = (a: Assembly, reachable: Set<string>): Map<string, string> => {
  const tips = new Map<string, string>();
  const nearest = nearestFinal(a.ctx, a.built);
  const rootOf = rootsOf(a);
  const { records } = a.ctx.graph;
  for (let i = records.length - 1; i >= 0; i--) {
    const key = a.ctx.graph.keyOfRecord(i);
    const f = key === null ? null : nearest(key);
    if (f === null || !reachable.has(f)) continue;
    const root = rootOf(f);
    if (!tips.has(root)) tips.set(root, f);
  }
  return tips;
};

/** Commits one root's turn tree depth-first, the active child last. */
const assemble = (a: Assembly, root: string, tip: string | undefined): CoreConversation => {
  const { ctx, built, childTurns } = a;
  const active = new Set<string>();
  for (let k: string | undefined = tip; k !== undefined; k = built.get(k)?.parent?.key)
    active.add(k);
  const used = new Set<string>();
  const fresh = (id: string, line: number): string => {
    let out = id;
    for (let i = 2; used.has(out); i++) out = `${id}-${i}`;
    if (out !== id)
      ctx.notes.change(line, 'message copied under a new id (a branch inside a turn)', out);
    used.add(out);
    return out;
  };
  const finalIds = new Map<string, string>();
  const parents = new Map<string, string | null>();
  const turns: ImportedTurn[] = [];
  const stack = [root];
  while (stack.length > 0) {
    const key = stack.pop() as string;
    const t = built.get(key) as BuiltTurn;
    const parentId = t.parent === null ? null : (finalIds.get(t.parent.key) ?? null);
    const committed = commitInputs(ctx, t, parentId, used, fresh);
    if (committed === null) continue; // noted; its children are left out below
    finalIds.set(key, committed.messages[committed.messages.length - 1].id as string);
    committed.messages.forEach((m, i) =>
      parents.set(m.id as string, i === 0 ? parentId : (committed.messages[i - 1].id as string)),
    );
    for (const l of committed.lines) ctx.covered.add(l);
    turns.push(committed);
    const children = [...(childTurns.get(key) ?? [])].sort(
      (x, y) => Number(active.has(x)) - Number(active.has(y)),
    );
    stack.push(...children.reverse());
  }
  for (const k of builtUnder(a, root))
    if (!finalIds.has(k))
      fail(
        ctx,
        built.get(k)?.groups.flat() ?? [],
        'turn skipped: it hangs on a turn that was skipped',
      );
  let tipId = tip === undefined ? undefined : finalIds.get(tip);
  if (tipId === undefined && turns.length > 0) {
    const last = turns[turns.length - 1].messages;
    tipId = last[last.length - 1].id;
  }
  const activeBranch: string[] = [];
  for (let id: string | null = tipId ?? null; id !== null; id = parents.get(id) ?? null)
    activeBranch.push(id);
  activeBranch.reverse();
  const childCount = new Map<string, number>();
  for (const p of parents.values()) if (p !== null) childCount.set(p, (childCount.get(p) ?? 0) + 1);
  const rootNode = built.get(root) as BuiltTurn;
  const first = rootNode.groups.find((g) => g.length > 0)?.[0] ?? rootNode.final;
  const idOfKey = new Map(
    [...finalIds].map(([k, id]) => [(ctx.graph.nodes.get(k) as Node).id, id]),
  );
  return {
    sidechain: first.sidechain,
    firstLine: first.lines[0],
    turns,
    tip: tipId ?? null,
    activeBranch,
    branchPoints: [...childCount].filter(([, n]) => n > 1).map(([id]) => id),
    turnEndIdOf: (recordId) => idOfKey.get(recordId),
  };
};

function* builtUnder(a: Assembly, root: string): Generator<string> {
  const stack = [root];
  while (stack.length > 0) {
    const k = stack.pop() as string;
    yield k;
    stack.push(...(a.childTurns.get(k) ?? []));
  }
}

const commitInputs = (
  ctx: Ctx,
  t: BuiltTurn,
  parentId: string | null,
  used: Set<string>,
  fresh: (id: string, line: number) => string,
): ImportedTurn | null => {
  const lines = t.groups.flatMap((g) => g.flatMap((n) => n.lines));
  const messages: MessageInput[] = [];
  const taken: string[] = [];
  for (const group of t.groups) {
    const line = group[0]?.lines[0] ?? t.final.lines[0];
    const id = fresh(group.length === 0 ? SYNTHETIC_PROMPT_ID : group[0].id, line);
    taken.push(id);
    if (group.length === 0)
      ctx.notes.change(
        line,
        'a user prompt was added before a transcript that starts with the assistant',
      );
    const s = sanitizeMessage(toInput(group, id), ctx.options.maxImageBytes);
    for (const r of s.replaced) ctx.notes.change(line, r);
    if (s.message === null) {
      for (const x of taken) used.delete(x);
      fail(ctx, t.groups.flat(), 'turn skipped: a message the domain rejects', s.errors.join('; '));
      return null;
    }
    messages.push(s.message);
  }
  const violations = checkTurn(messages, { atRoot: parentId === null });
  if (violations.length > 0) {
    for (const x of taken) used.delete(x);
    fail(ctx, t.groups.flat(), `turn skipped: ${violations.map((v) => v.code).join(', ')}`);
    return null;
  }
  return { parentId, messages, lines };
};

/** Every conversation the nodes hold, main (non-sidechain, first in the file) first. */
export const buildConversations = (
  graph: NodeGraph,
  notes: Notes,
  options: BuildOptions = {},
): CoreConversation[] => {
  const ctx: Ctx = { graph, notes, options, failed: new Map(), covered: new Set() };
  const built = buildTurns(ctx);
  const childTurns = new Map<string | null, string[]>();
  for (const [k, t] of built) {
    const p = t.parent?.key ?? null;
    if (p !== null && !built.has(p)) {
      fail(ctx, t.groups.flat(), 'turn skipped: it hangs on a turn that was skipped');
      continue;
    }
    const siblings = childTurns.get(p);
    if (siblings === undefined) childTurns.set(p, [k]);
    else siblings.push(k);
  }
  const a: Assembly = { ctx, built, childTurns };
  const roots = childTurns.get(null) ?? [];
  const reachable = new Set(roots.flatMap((r) => [...builtUnder(a, r)]));
  const tips = tipsByRoot(a, reachable);
  const conversations = roots
    .map((r) => assemble(a, r, tips.get(r)))
    .filter((c) => c.turns.length > 0);
  noteUncovered(ctx);
  return conversations.sort(
    (x, y) => Number(x.sidechain) - Number(y.sidechain) || x.firstLine - y.firstLine,
  );
};

const noteUncovered = (ctx: Ctx): void => {
  for (const n of ctx.graph.nodes.values()) {
    if (n.items.length === 0) continue; // noted as empty, or merged (its lines are covered)
    for (const line of n.lines) {
      if (ctx.covered.has(line)) continue;
      const failed = ctx.failed.get(n.key);
      if (failed === undefined)
        ctx.notes.skip(line, 'not in a finished turn (no final answer follows it on its branch)');
      else ctx.notes.skip(line, failed.reason, failed.detail);
    }
  }
};
