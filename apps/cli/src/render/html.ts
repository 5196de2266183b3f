/**
 * A conversation as one self-contained HTML page (inline CSS, no script, no external asset;
 * images as data: URIs): the tree, collapsible at every side branch and long run, then the
 * active branch as a transcript. Messages of the active branch are written once, in the
 * transcript (the tree links to them); messages of other branches open in place. Every piece of
 * content is escaped.
 */
import { type Block, imageSourceLabel, type Message } from '@arbor/domain/messages';
import { type ConversationInfo, type TreeView } from '../client/types';
import { preview, roleLetter } from './preview';

export const escapeHtml = (s: string): string =>
  s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');

const anchor = (id: string): string => `m-${escapeHtml(id)}`;

const CSS = `
:root{color-scheme:light dark;--fg:#1d1f23;--bg:#fbfbfa;--muted:#6b7078;--line:#d9dadd;--user:#2f6fdb;--assistant:#1f8a5b;--system:#8a5a1f;--mark:#b3261e;--code:#f1f1ef}
@media (prefers-color-scheme:dark){:root{--fg:#e4e4e2;--bg:#17181a;--muted:#9a9ea6;--line:#34363b;--code:#222428}}
*{box-sizing:border-box}body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:var(--bg)}
main{max-width:980px;margin:0 auto;padding:24px 20px 80px}h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:32px 0 8px;border-bottom:1px solid var(--line);padding-bottom:4px}
.meta{color:var(--muted);font-size:13px}code,pre{font:13px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
pre{white-space:pre-wrap;word-break:break-word;background:var(--code);padding:8px 10px;border-radius:6px;margin:6px 0;max-height:480px;overflow:auto}
.tree{list-style:none;padding-left:0;margin:0}.tree ul{list-style:none;margin:2px 0 2px 10px;padding-left:12px;border-left:2px solid var(--line)}
.node{display:flex;gap:8px;align-items:baseline;padding:1px 0;font-size:14px}.node .id{color:var(--muted);font:12px ui-monospace,monospace}
.r{font:700 12px ui-monospace,monospace;width:14px;display:inline-block}.r-U{color:var(--user)}.r-A{color:var(--assistant)}.r-S{color:var(--system)}
.active>.node .pv,.active>details>summary .pv{font-weight:600}.pv{overflow:hidden;text-overflow:ellipsis;white-space:nowrap;max-width:620px}
.mark{color:var(--mark);font-size:12px;white-space:nowrap}.label{background:var(--code);border-radius:4px;padding:0 5px;font-size:12px}
details>summary{cursor:pointer}summary.fold{color:var(--muted);font-size:13px}
.msg{border:1px solid var(--line);border-radius:8px;margin:10px 0;padding:8px 12px}.msg>header{display:flex;gap:10px;align-items:baseline;font-size:13px;color:var(--muted)}
.msg>header b{font-size:14px}.msg.user>header b{color:var(--user)}.msg.assistant>header b{color:var(--assistant)}.msg.system>header b{color:var(--system)}
.block{margin:6px 0}.tool{font-size:13px}.err{color:var(--mark)}img{max-width:100%;border:1px solid var(--line);border-radius:4px}
a{color:inherit}
`;

const json = (v: unknown): string => escapeHtml(JSON.stringify(v, null, 2));

const blockHtml = (b: Block): string => {
  switch (b.type) {
    case 'text':
      return `<pre class="block text">${escapeHtml(b.text)}</pre>`;
    case 'image':
      if (b.source.type !== 'base64')
        return `<div class="block meta">[image: ${escapeHtml(imageSourceLabel(b.source))}]</div>`;
      return `<div class="block"><img alt="image (${escapeHtml(b.source.media_type)})" src="data:${escapeHtml(b.source.media_type)};base64,${escapeHtml(b.source.data)}"></div>`;
    case 'tool_use':
      return `<details class="block tool"><summary>tool call <code>${escapeHtml(b.name)}</code> <span class="id">${escapeHtml(b.id)}</span></summary><pre>${json(b.input)}</pre></details>`;
    case 'tool_result': {
      const inner =
        typeof b.content === 'string'
          ? `<pre>${escapeHtml(b.content)}</pre>`
          : b.content.map(blockHtml).join('');
      return `<details class="block tool"><summary>tool result <span class="id">${escapeHtml(b.tool_use_id)}</span>${b.is_error === true ? ' <span class="err">error</span>' : ''}</summary>${inner}</details>`;
    }
    case 'thinking':
      return `<details class="block"><summary>thinking</summary><pre>${escapeHtml(b.thinking)}</pre></details>`;
    case 'redacted_thinking':
      return '<div class="block meta">[redacted thinking]</div>';
    case 'reasoning':
      return `<details class="block"><summary>reasoning <span class="id">${escapeHtml(b.id ?? '')}</span></summary><pre>${escapeHtml(b.summary.map((s) => s.text).join('\n\n'))}</pre></details>`;
    case 'provider':
      return `<div class="block meta">[${escapeHtml(b.provider)} ${escapeHtml(String(b.item['type']))} block]</div>`;
  }
};

const messageHtml = (m: Message, id?: string): string =>
  `<article class="msg ${escapeHtml(m.role)}"${id ? ` id="${id}"` : ''}><header><b>${escapeHtml(m.role)}</b><code>${escapeHtml(m.id)}</code>${m.model ? `<span>${escapeHtml(m.model)}</span>` : ''}</header>${m.content.map(blockHtml).join('')}</article>`;

interface Ctx {
  byId: Map<string, TreeView['nodes'][number]>;
  messages: Map<string, Message>;
  active: Set<string>;
  labels: Map<string, string[]>;
  tip: string | null;
}

const marks = (ctx: Ctx, id: string): string => {
  const node = ctx.byId.get(id);
  const out: string[] = [];
  if (node !== undefined && node.children.length > 1)
    out.push(`<span class="mark">⑂ ${node.children.length} branches</span>`);
  for (const l of ctx.labels.get(id) ?? []) out.push(`<span class="label">${escapeHtml(l)}</span>`);
  if (id === ctx.tip) out.push('<span class="mark">◀ tip</span>');
  return out.join(' ');
};

const nodeLine = (ctx: Ctx, id: string): string => {
  const m = ctx.messages.get(id);
  const role = roleLetter(ctx.byId.get(id)?.role ?? '');
  const pv = escapeHtml(m === undefined ? '' : preview(m, 160));
  const head = `<span class="r r-${role}">${role}</span><span class="id">${escapeHtml(id.slice(0, 8))}</span><span class="pv">${pv}</span>${marks(ctx, id)}`;
  if (ctx.active.has(id))
    return `<li class="active"><a class="node" href="#${anchor(id)}">${head}</a></li>`;
  return `<li><details><summary class="node">${head}</summary>${m ? messageHtml(m) : ''}</details></li>`;
};

/** The chain from `start`, long runs folded, side branches nested and collapsible. */
const chainHtml = (ctx: Ctx, start: string): string => {
  const items: string[] = [];
  let run: string[] = [];
  const flush = () => {
    if (run.length > 8) {
      items.push(
        `<li><details><summary class="fold">⋮ ${run.length} messages</summary><ul class="tree">${run.map((id) => nodeLine(ctx, id)).join('')}</ul></details></li>`,
      );
    } else items.push(...run.map((id) => nodeLine(ctx, id)));
    run = [];
  };
  let id: string | undefined = start;
  while (id !== undefined) {
    const node = ctx.byId.get(id);
    if (node === undefined) break;
    const notable = id === ctx.tip || ctx.labels.has(id) || node.children.length !== 1;
    if (!notable) {
      run.push(id);
      id = node.children[0];
      continue;
    }
    flush();
    items.push(nodeLine(ctx, id));
    if (node.children.length === 0) break;
    const next =
      node.children.find((c) => ctx.active.has(c)) ?? node.children[node.children.length - 1];
    const sides = node.children.filter((c) => c !== next);
    sides.forEach((side, i) => {
      items.push(
        `<li><details><summary class="fold">branch ${i + 1} of ${sides.length} from ${escapeHtml(id?.slice(0, 8) ?? '')}</summary><ul>${chainHtml(ctx, side)}</ul></details></li>`,
      );
    });
    id = next;
  }
  flush();
  return items.join('');
};

export const renderHtml = (
  conversation: ConversationInfo,
  tree: TreeView,
  messages: readonly Message[],
): string => {
  const byId = new Map(tree.nodes.map((n) => [n.id, n]));
  const activeIds: string[] = [];
  for (
    let id = tree.tip;
    id !== null && !activeIds.includes(id);
    id = byId.get(id)?.parentId ?? null
  )
    activeIds.unshift(id);
  const labels = new Map<string, string[]>();
  for (const c of tree.checkpoints) {
    const text = c.status === 'active' ? c.label : `${c.label} (${c.status})`;
    labels.set(c.messageId, [...(labels.get(c.messageId) ?? []), text]);
  }
  const ctx: Ctx = {
    byId,
    messages: new Map(messages.map((m) => [m.id, m])),
    active: new Set(activeIds),
    labels,
    tip: tree.tip,
  };
  const title = conversation.title ?? conversation.id;
  const roots = tree.nodes.filter((n) => n.parentId === null);
  const transcript = activeIds
    .map((id) => ctx.messages.get(id))
    .filter((m): m is Message => m !== undefined)
    .map((m) => messageHtml(m, anchor(m.id)))
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title><style>${CSS}</style></head>
<body><main>
<h1>${escapeHtml(title)}</h1>
<div class="meta">conversation <code>${escapeHtml(conversation.id)}</code> · ${tree.nodes.length} messages · ${conversation.counts.turns} turns · ${tree.branchPoints.length} branch point(s) · ${tree.checkpoints.length} checkpoint(s) · tip <code>${escapeHtml(tree.tip ?? 'none')}</code> · revision ${conversation.revision}</div>
<h2>Tree</h2>
<p class="meta">Bold: the active branch (click to jump to it below). Other branches and long runs fold; open them to read their messages.</p>
<ul class="tree">${roots.map((r) => chainHtml(ctx, r.id)).join('')}</ul>
<h2>Active branch (${activeIds.length} messages, root → tip)</h2>
${transcript}
</main></body></html>
`;
};
