/**
 * The tree in a terminal. The active branch runs down the left edge (`*`); every other branch is
 * drawn indented under its branch point (`⑂`), so indentation only grows for side branches. Long
 * linear runs fold into one `⋮ N messages` line unless `expand` is set. The tip is marked
 * `◀ tip`, checkpoint labels `[label]` (with their status when not active).
 */
import { type Message } from '@arbor/domain';
import { type ConversationInfo, type TreeView } from '../client/types';
import { preview, roleLetter } from './preview';

export interface TreeRenderOptions {
  /** Show whole message ids (default: 8 characters). */
  fullIds: boolean;
  /** Never fold linear runs. */
  expand: boolean;
  /** Width of the preview column. */
  width: number;
}

interface Ctx {
  byId: Map<string, TreeView['nodes'][number]>;
  messages: Map<string, Message>;
  active: Set<string>;
  labels: Map<string, string[]>;
  tip: string | null;
  options: TreeRenderOptions;
  out: string[];
}

const shortId = (id: string, full: boolean): string =>
  full || id.length <= 10 ? id : `${id.slice(0, 8)}…`;

const line = (ctx: Ctx, prefix: string, id: string): string => {
  const node = ctx.byId.get(id);
  const m = ctx.messages.get(id);
  const marks = [
    ...(node !== undefined && node.children.length > 1 ? [`⑂ ${node.children.length}`] : []),
    ...(ctx.labels.get(id) ?? []).map((l) => `[${l}]`),
    ...(id === ctx.tip ? ['◀ tip'] : []),
  ];
  const idText = shortId(id, ctx.options.fullIds).padEnd(ctx.options.fullIds ? 0 : 9);
  const body = m === undefined ? '' : preview(m, ctx.options.width);
  return (
    `${ctx.active.has(id) ? '*' : ' '} ${prefix}${roleLetter(node?.role ?? '')} ${idText} ${body}` +
    (marks.length > 0 ? `  ${marks.join(' ')}` : '')
  ).trimEnd();
};

/** A node worth keeping on screen inside a run. */
const notable = (ctx: Ctx, id: string): boolean =>
  id === ctx.tip || ctx.labels.has(id) || (ctx.byId.get(id)?.children.length ?? 0) !== 1;

/** Draws the chain starting at `start`; side branches recurse with a deeper prefix. */
const drawChain = (ctx: Ctx, start: string, prefix: string): void => {
  let run: string[] = [];
  const flush = () => {
    const keep = 2;
    if (ctx.options.expand || run.length <= keep * 2 + 1) {
      for (const id of run) ctx.out.push(line(ctx, prefix, id));
    } else {
      for (const id of run.slice(0, keep)) ctx.out.push(line(ctx, prefix, id));
      const hidden = run.length - keep * 2;
      const onActive = ctx.active.has(run[keep]) ? '*' : ' ';
      ctx.out.push(`${onActive} ${prefix}⋮ ${hidden} messages`);
      for (const id of run.slice(-keep)) ctx.out.push(line(ctx, prefix, id));
    }
    run = [];
  };
  let id: string | undefined = start;
  while (id !== undefined) {
    const node = ctx.byId.get(id);
    if (node === undefined) break;
    if (!notable(ctx, id)) {
      run.push(id);
      id = node.children[0];
      continue;
    }
    flush();
    ctx.out.push(line(ctx, prefix, id));
    if (node.children.length === 0) break;
    // Side branches first (indented), then the continuation: the active child, else the last.
    const next =
      node.children.find((c) => ctx.active.has(c)) ?? node.children[node.children.length - 1];
    for (const side of node.children) if (side !== next) drawChain(ctx, side, `${prefix}│ `);
    id = next;
  }
  flush();
};

export const renderTree = (
  conversation: ConversationInfo,
  tree: TreeView,
  messages: readonly Message[],
  options: TreeRenderOptions,
): string => {
  const byId = new Map(tree.nodes.map((n) => [n.id, n]));
  const active = new Set<string>();
  for (let id = tree.tip; id !== null; id = byId.get(id)?.parentId ?? null) {
    if (active.has(id)) break;
    active.add(id);
  }
  const labels = new Map<string, string[]>();
  for (const c of tree.checkpoints) {
    const text = c.status === 'active' ? c.label : `${c.label}: ${c.status}`;
    labels.set(c.messageId, [...(labels.get(c.messageId) ?? []), text]);
  }
  const ctx: Ctx = {
    byId,
    messages: new Map(messages.map((m) => [m.id, m])),
    active,
    labels,
    tip: tree.tip,
    options,
    out: [],
  };
  const title = conversation.title === null ? '' : ` "${conversation.title}"`;
  ctx.out.push(
    `${conversation.id}${title}`,
    `  ${tree.nodes.length} messages · ${conversation.counts.turns} turns · ` +
      `${tree.branchPoints.length} branch point(s) · ${tree.checkpoints.length} checkpoint(s) · ` +
      `tip ${tree.tip ?? 'none'} · revision ${conversation.revision}`,
    '',
  );
  for (const root of tree.nodes.filter((n) => n.parentId === null)) drawChain(ctx, root.id, '');
  return ctx.out.join('\n') + '\n';
};
