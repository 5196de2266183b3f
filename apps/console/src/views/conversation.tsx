/**
 * One conversation: the tree as a picture with the selected message and its path to the root,
 * the actions (tip, fork, checkpoint, rewind, resume, export), and the tabs to the audit log,
 * replay and compare. While "live" is on, it follows the conversation's SSE stream and redraws
 * when events arrive.
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import {
  api,
  type Conversation,
  type Decision,
  followStream,
  type Message,
  read,
  readOnly,
  type Replay,
  type Tree,
} from '../api';
import { MessageView, preview } from '../blocks';
import { exportHtml } from '../export-html';
import {
  checkpointsByMessage,
  DEFAULT_FOLD,
  indexTree,
  pathToRoot,
  type Row,
  treeRows,
} from '../tree-model';
import { download, go, href, ProblemBox, short, useAsync } from '../ui';
import { AuditView } from './audit';
import { CompareView } from './compare';
import { ReplayView } from './replay';

export interface Loaded {
  conversation: Conversation;
  tree: Tree;
  messages: Map<string, Message>;
  loadMs: number;
}

/** What the tree view draws first, in three calls of the public API made at once. */
export const loadConversation = async (id: string): Promise<Loaded> => {
  const t0 = performance.now();
  const [conversation, tree, jsonl] = await Promise.all([
    read('getConversation', { path: { id } }),
    read('tree', { path: { id } }),
    read('export', { path: { id }, query: { format: 'jsonl', scope: 'tree' } }) as Promise<string>,
  ]);
  const messages = new Map<string, Message>();
  for (const line of jsonl.split('\n')) {
    if (line === '') continue;
    const m = JSON.parse(line) as Message;
    messages.set(m.id, m);
  }
  return { conversation, tree, messages, loadMs: performance.now() - t0 };
};

/** Which decisions shade which messages: snapshot/summary ranges and elided tool results. */
const compactionMarks = (state: Replay | null) => {
  const covered = new Map<string, Decision>();
  const elided = new Set<string>();
  if (!state) return { covered, elided };
  const inForce = new Set(state.compactions.inForce);
  for (const d of state.compactions.decisions) {
    if (inForce.size > 0 && !inForce.has(d.id)) continue;
    if (d.rung === 'elide') for (const r of d.results) elided.add(r.messageId);
    else if (d.rung !== 'strip_images') for (const id of d.coveredIds) covered.set(id, d);
  }
  return { covered, elided };
};

type Tab = 'tree' | 'audit' | 'replay' | 'compare';

export const ConversationView = ({ id, tab, args }: { id: string; tab: Tab; args: string[] }) => {
  const [version, setVersion] = useState(0);
  const ro = readOnly();
  // Live: the conversation's SSE stream (tenant keys; the admin's read-only routes have none).
  const [live, setLive] = useState(!ro);
  const [stream, setStream] = useState<'off' | 'open' | 'reconnecting'>('off');
  const loaded = useAsync(() => loadConversation(id), [id, version]);
  const revision = loaded.data?.conversation.revision;
  const from = useRef<number | null>(null);
  if (revision !== undefined && from.current === null) from.current = revision;
  const started = revision !== undefined;
  useEffect(() => {
    if (!live || !started || from.current === null) return;
    // A turn is several events: redraw once they have stopped coming for 150 ms.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stop = followStream(
      id,
      from.current,
      () => {
        clearTimeout(timer);
        timer = setTimeout(() => setVersion((v) => v + 1), 150);
      },
      setStream,
    );
    return () => {
      clearTimeout(timer);
      stop();
      setStream('off');
    };
  }, [id, live, started]);
  const c = loaded.data?.conversation;
  return (
    <section data-testid="conversation">
      <h2>
        {c?.title ?? <i>untitled</i>} <code class="muted">{id}</code>
      </h2>
      <nav class="tabs">
        {(['tree', 'audit', 'replay', 'compare'] as Tab[]).map((t) => (
          <a key={t} href={href('c', id, t)} class={t === tab ? 'on' : ''} data-testid={`tab-${t}`}>
            {t === 'audit' ? 'audit log' : t}
          </a>
        ))}
        <label class="live">
          <input
            type="checkbox"
            data-testid="live"
            checked={live}
            disabled={ro}
            onChange={(e) => setLive((e.target as HTMLInputElement).checked)}
          />{' '}
          {ro ? (
            'live (tenant keys only)'
          ) : (
            <>
              live (stream: <span data-testid="live-state">{stream}</span>)
            </>
          )}
          {c ? (
            <>
              {' '}
              · revision <b data-testid="revision">{c.revision}</b>
            </>
          ) : null}
        </label>
      </nav>
      <ProblemBox error={loaded.error} />
      {loaded.data ? (
        tab === 'tree' ? (
          <TreeView
            data={loaded.data}
            onChanged={() => setVersion((v) => v + 1)}
            selectedId={args[0]}
          />
        ) : tab === 'audit' ? (
          <AuditView id={id} />
        ) : tab === 'replay' ? (
          <ReplayView id={id} data={loaded.data} at={args[0]} />
        ) : (
          <CompareView data={loaded.data} a={args[0]} b={args[1]} />
        )
      ) : loaded.loading ? (
        <p class="muted">loading…</p>
      ) : null}
    </section>
  );
};

export interface TreePictureProps {
  tree: Tree;
  messages: Map<string, Message>;
  conversation: Conversation;
  state: Replay | null;
  selected: string | null;
  onSelect: (id: string) => void;
}

/** The tree as rows: role, preview, tip, branch points, checkpoints, forks, compactions, failures. */
export const TreePicture = ({
  tree,
  messages,
  conversation,
  state,
  selected,
  onSelect,
}: TreePictureProps) => {
  const [open, setOpen] = useState<Set<string>>(new Set());
  const ix = useMemo(() => indexTree(tree), [tree]);
  const cps = useMemo(() => checkpointsByMessage(tree.checkpoints), [tree]);
  const marks = useMemo(() => compactionMarks(state), [state]);
  const forksAt = useMemo(() => {
    const m = new Map<string, string[]>();
    for (const f of conversation.lineage.forks) {
      const at = typeof f.messageId === 'string' ? f.messageId : null;
      if (at) m.set(at, [...(m.get(at) ?? []), f.conversationId]);
    }
    return m;
  }, [conversation]);
  const branchPoints = useMemo(() => new Set(tree.branchPoints), [tree]);
  const pinned = useMemo(() => {
    const p = new Set<string>([...cps.keys(), ...forksAt.keys()]);
    if (tree.tip) p.add(tree.tip);
    if (selected) p.add(selected);
    for (const d of state?.compactions.decisions ?? []) {
      if (d.rung === 'elide' || d.rung === 'strip_images') continue;
      p.add(d.fromId);
      p.add(d.toId);
    }
    return p;
  }, [cps, forksAt, tree, selected, state]);
  const rows = useMemo(() => treeRows(ix, { ...DEFAULT_FOLD, pinned, open }), [ix, pinned, open]);
  const listRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = listRef.current?.querySelector('.row.selected');
    if (el) (el as HTMLElement).scrollIntoView({ block: 'nearest' });
  }, [selected]);
  const nodeRows = rows.filter((r): r is Extract<Row, { kind: 'node' }> => r.kind === 'node');
  const onKey = (e: KeyboardEvent) => {
    const i = rows.findIndex((r) => r.kind === 'node' && r.id === selected);
    const move = (to: number) => {
      const r = rows[Math.max(0, Math.min(rows.length - 1, to))];
      if (r?.kind === 'node') onSelect(r.id);
      else if (r?.kind === 'fold') setOpen(new Set([...open, r.key]));
    };
    if (e.key === 'ArrowDown' || e.key === 'j') move(i + 1);
    else if (e.key === 'ArrowUp' || e.key === 'k') move(i - 1);
    else if (e.key === 'ArrowLeft' || e.key === 'h') {
      const p = selected ? ix.byId.get(selected)?.parentId : null;
      if (p) onSelect(p);
    } else if (e.key === 'ArrowRight' || e.key === 'l') {
      const n = selected ? ix.byId.get(selected) : undefined;
      if (n && n.children.length > 0)
        onSelect(n.children.find((x) => ix.active.has(x)) ?? n.children[0]);
    } else if (e.key === 't' && tree.tip) onSelect(tree.tip);
    else if (e.key === 'Home' && nodeRows[0]) onSelect(nodeRows[0].id);
    else if (e.key === 'End' && nodeRows.length > 0) onSelect(nodeRows[nodeRows.length - 1].id);
    else return;
    e.preventDefault();
  };
  return (
    <div
      class="tree"
      tabIndex={0}
      onKeyDown={onKey}
      ref={listRef}
      data-testid="tree"
      aria-label="conversation tree; arrows or j/k move, h/l parent/child, t tip"
    >
      {conversation.lineage.forkedFrom ? (
        <div class="row fork-from">
          ↰ forked from{' '}
          <a
            href={href(
              'c',
              conversation.lineage.forkedFrom.conversationId,
              'tree',
              conversation.lineage.forkedFrom.messageId,
            )}
            data-testid="forked-from"
          >
            {short(conversation.lineage.forkedFrom.conversationId, 20)} at{' '}
            {short(conversation.lineage.forkedFrom.messageId)}
          </a>
        </div>
      ) : null}
      {rows.map((r) => {
        if (r.kind === 'fold')
          return (
            <div
              key={r.key}
              class={`row fold${r.active ? ' active' : ''}`}
              style={{ paddingLeft: `${r.depth * 18 + 6}px` }}
              data-testid="fold"
              onClick={() => setOpen(new Set([...open, r.key]))}
            >
              ⋮ {r.ids.length} messages folded (click to unfold)
            </div>
          );
        const n = ix.byId.get(r.id)!;
        const m = messages.get(r.id);
        const cover = marks.covered.get(r.id);
        return (
          <div
            key={r.id}
            data-testid="node"
            data-id={r.id}
            class={[
              'row',
              r.active ? 'active' : 'side',
              r.id === selected ? 'selected' : '',
              cover ? `covered rung-${cover.rung}` : '',
            ].join(' ')}
            style={{ paddingLeft: `${r.depth * 18 + 6}px` }}
            onClick={() => onSelect(r.id)}
            title={cover ? `${cover.rung} (${cover.trigger ?? ''}) covers this message` : undefined}
          >
            {r.sideOf ? <span class="muted">└ </span> : null}
            <span class={`role role-${n.role}`}>{n.role[0].toUpperCase()}</span>
            <span class="preview">{preview(m, 110)}</span>
            {r.id === tree.tip ? (
              <span class="badge tip" data-testid="tip-badge">
                tip
              </span>
            ) : null}
            {branchPoints.has(r.id) ? (
              <span class="badge bp">{n.children.length} branches</span>
            ) : null}
            {(cps.get(r.id) ?? []).map((cp) => (
              <span
                key={cp.label}
                class={`badge cp cp-${cp.status}`}
                data-testid="checkpoint-badge"
                title={cp.reason ?? cp.status}
              >
                ⚑ {cp.label} · {cp.status}
                {cp.reason ? ` (${cp.reason})` : ''}
              </span>
            ))}
            {(forksAt.get(r.id) ?? []).map((f) => (
              <a
                key={f}
                class="badge fork"
                href={href('c', f, 'tree')}
                data-testid="fork-link"
                onClick={(e) => e.stopPropagation()}
              >
                → fork {short(f, 12)}
              </a>
            ))}
            {cover && cover.fromId === r.id ? (
              <span class="badge rung">▤ {cover.rung} from here</span>
            ) : null}
            {marks.elided.has(r.id) ? <span class="badge rung">elided result</span> : null}
          </div>
        );
      })}
      {state?.pendingFailure ? (
        <div class="row failed" data-testid="failed-turn">
          ✗ failed turn after the tip:{' '}
          <code>{JSON.stringify(state.pendingFailure.error).slice(0, 160)}</code>
        </div>
      ) : null}
    </div>
  );
};

const TreeView = ({
  data,
  onChanged,
  selectedId,
}: {
  data: Loaded;
  onChanged: () => void;
  selectedId?: string;
}) => {
  const { conversation, tree, messages } = data;
  const id = conversation.id;
  const [selected, setSelected] = useState<string | null>(selectedId ?? tree.tip);
  useEffect(() => {
    if (selectedId) setSelected(selectedId);
  }, [selectedId]);
  // The compactions in force and the pending failure (the replay at the current revision): drawn
  // when they arrive, so they never hold the tree back.
  const replayed = useAsync(
    () =>
      read('replay', {
        path: { id },
        query: { revision: String(conversation.revision), limit: 1 },
      }).catch(() => null),
    [id, conversation.revision],
  );
  const state = replayed.data ?? null;
  useEffect(() => {
    (window as unknown as { __arborTreeMs?: number }).__arborTreeMs = data.loadMs;
  }, [data]);
  return (
    <div class="split">
      <div class="left">
        <div class="muted" data-testid="tree-stats">
          {tree.nodes.length} messages · {tree.branchPoints.length} branch points ·{' '}
          {tree.checkpoints.length} checkpoints · loaded in {Math.round(data.loadMs)} ms
        </div>
        <TreePicture
          tree={tree}
          messages={messages}
          conversation={conversation}
          state={state}
          selected={selected}
          onSelect={setSelected}
        />
      </div>
      <div class="right">
        <Actions data={data} selected={selected} onChanged={onChanged} />
        {selected ? (
          <Detail id={id} messageId={selected} data={data} onSelect={setSelected} />
        ) : null}
      </div>
    </div>
  );
};

/** Path entries drawn before "show all": the nearest ancestors are the ones read. */
const PATH_SHOWN = 40;

const Detail = ({
  id,
  messageId,
  data,
  onSelect,
}: {
  id: string;
  messageId: string;
  data: Loaded;
  onSelect: (id: string) => void;
}) => {
  const stored = useAsync(() => read('getMessage', { path: { id, messageId } }), [id, messageId]);
  const byId = useMemo(() => indexTree(data.tree).byId, [data.tree]);
  const path = pathToRoot(byId, messageId);
  const [allPath, setAllPath] = useState(false);
  const around: Message[] = [];
  const node = byId.get(messageId);
  for (const c of node?.children ?? []) {
    const m = data.messages.get(c);
    if (m) around.push(m);
  }
  if (node?.parentId) {
    const p = data.messages.get(node.parentId);
    if (p) around.push(p);
  }
  return (
    <div class="detail" data-testid="detail">
      <h3>Message as stored</h3>
      <ProblemBox error={stored.error} />
      {stored.data ? <MessageView message={stored.data} others={around} /> : null}
      <h3>
        Path to the root (<span data-testid="path-length">{path.length}</span>)
      </h3>
      <ol class="path" data-testid="path">
        {(allPath ? path : path.slice(0, PATH_SHOWN)).map((p) => (
          <li key={p}>
            <button class="link" onClick={() => onSelect(p)}>
              <code>{short(p)}</code>
            </button>{' '}
            <span class="muted">{byId.get(p)?.role}</span> {preview(data.messages.get(p), 60)}
          </li>
        ))}
      </ol>
      {!allPath && path.length > PATH_SHOWN ? (
        <button data-testid="path-all" onClick={() => setAllPath(true)}>
          show all {path.length} (to the root)
        </button>
      ) : null}
    </div>
  );
};

const Actions = ({
  data,
  selected,
  onChanged,
}: {
  data: Loaded;
  selected: string | null;
  onChanged: () => void;
}) => {
  const { conversation, tree } = data;
  const id = conversation.id;
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<string | null>(null);
  const [label, setLabel] = useState('');
  const [keep, setKeep] = useState('20');
  const ro = readOnly();
  const act = async (what: string, f: () => Promise<unknown>) => {
    setError(null);
    setDone(null);
    try {
      const r = await f();
      setDone(`${what}: ${JSON.stringify(r).slice(0, 300)}`);
      onChanged();
    } catch (e) {
      setError(e);
    }
  };
  const exportText = async (format: 'jsonl' | 'markdown' | 'html') => {
    setError(null);
    try {
      if (format === 'html') {
        download(
          `${id}.html`,
          'text/html',
          exportHtml(conversation, tree, [...data.messages.values()]),
        );
      } else {
        const body = (await read('export', { path: { id }, query: { format } })) as string;
        download(
          `${id}.${format === 'jsonl' ? 'jsonl' : 'md'}`,
          format === 'jsonl' ? 'application/x-ndjson' : 'text/markdown',
          body,
        );
      }
      setDone(`exported ${format}`);
    } catch (e) {
      setError(e);
    }
  };
  return (
    <div class="actions" data-testid="actions">
      <h3>
        Actions{' '}
        {selected ? (
          <span class="muted">
            on <code>{short(selected)}</code>
          </span>
        ) : null}
      </h3>
      {ro ? (
        <p class="muted" data-testid="read-only">
          Read-only: the admin reads this tenant's data through its own routes (each read is
          recorded in the tenant's log); changes are made with the tenant's keys.
        </p>
      ) : (
        <div class="toolbar">
          <button
            data-testid="move-tip"
            disabled={!selected || selected === tree.tip}
            onClick={() =>
              act('tip moved', () =>
                api().moveTip(id, { messageId: selected, expectedTip: tree.tip }),
              )
            }
          >
            move tip here
          </button>
          <button
            data-testid="fork"
            disabled={!selected}
            onClick={() =>
              act('forked', async () => {
                const r = await api().fork(id, { messageId: selected ?? undefined });
                setTimeout(() => go('c', r.id, 'tree'), 0);
                return r;
              })
            }
          >
            fork from here
          </button>
          <input
            data-testid="checkpoint-label"
            placeholder="checkpoint label"
            value={label}
            onInput={(e) => setLabel((e.target as HTMLInputElement).value)}
          />
          <button
            data-testid="set-checkpoint"
            disabled={!selected || label === ''}
            onClick={() =>
              act('checkpoint set', () =>
                api().call('setCheckpoint', {
                  path: { id },
                  body: { label, messageId: selected ?? undefined },
                }),
              )
            }
          >
            set checkpoint
          </button>
        </div>
      )}
      <div class="toolbar">
        {ro ? null : (
          <>
            <input
              data-testid="keep-messages"
              size={5}
              value={keep}
              onInput={(e) => setKeep((e.target as HTMLInputElement).value)}
            />
            <button
              data-testid="resume"
              onClick={() =>
                act('resumed', () =>
                  api().call('resume', { path: { id }, body: { keepMessages: Number(keep) } }),
                )
              }
            >
              resume (keep N messages)
            </button>
          </>
        )}
        <span class="muted">export</span>
        <button data-testid="export-jsonl" onClick={() => void exportText('jsonl')}>
          jsonl
        </button>
        <button data-testid="export-markdown" onClick={() => void exportText('markdown')}>
          markdown
        </button>
        <button data-testid="export-html" onClick={() => void exportText('html')}>
          html
        </button>
        <a
          href={href('c', id, 'compare', selected ?? '', tree.tip ?? '')}
          data-testid="compare-link"
        >
          compare with tip
        </a>
      </div>
      {tree.checkpoints.length > 0 ? (
        <table class="grid small" data-testid="checkpoints">
          <tbody>
            {tree.checkpoints.map((cp) => (
              <tr key={cp.label}>
                <td>⚑ {cp.label}</td>
                <td>
                  <code>{short(cp.messageId)}</code>
                </td>
                <td class={`cp-${cp.status}`}>
                  {cp.status}
                  {cp.reason ? ` — ${cp.reason}` : ''}
                </td>
                <td>
                  {ro ? null : (
                    <button
                      data-testid={`rewind-${cp.label}`}
                      onClick={() =>
                        act('rewound', () =>
                          api().call('rewind', {
                            path: { id, label: cp.label },
                            body: { expectedTip: tree.tip },
                          }),
                        )
                      }
                    >
                      rewind
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <ProblemBox error={error} />
      {done ? (
        <div class="done" data-testid="done">
          {done}
        </div>
      ) : null}
    </div>
  );
};
