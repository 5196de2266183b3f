/**
 * Replay: the conversation as of any event (slider, or a revision from the audit log), and for
 * every context handed out, what the model saw: the reproduced body, the hash verdict, the rungs,
 * the window by kind and the snapshot pages.
 */
import { useEffect, useState } from 'preact/hooks';
import { type Block, type ContextItem, type Decision, read } from '../api';
import { BlockView, imagesIn } from '../blocks';
import { href, ProblemBox, short, useAsync } from '../ui';
import { type Loaded, TreePicture } from './conversation';

export const ReplayView = ({ id, data, at }: { id: string; data: Loaded; at?: string }) => {
  const last = data.conversation.revision;
  const initial = at !== undefined && /^\d+$/.test(at) ? Math.min(Number(at), last) : last;
  const [revision, setRevision] = useState(initial);
  const [shown, setShown] = useState(initial);
  useEffect(() => setRevision(initial), [initial]);
  // The slider moves freely; the replay is asked for once it rests for a moment.
  useEffect(() => {
    const t = setTimeout(() => setShown(revision), 150);
    return () => clearTimeout(t);
  }, [revision]);
  const replay = useAsync(
    () => read('replay', { path: { id }, query: { revision: String(shown), limit: 20 } }),
    [id, shown],
  );
  const [selected, setSelected] = useState<string | null>(null);
  const r = replay.data;
  return (
    <div data-testid="replay">
      <div class="toolbar">
        <label>
          revision{' '}
          <input
            type="range"
            min={0}
            max={last}
            value={revision}
            data-testid="revision-slider"
            onInput={(e) => setRevision(Number((e.target as HTMLInputElement).value))}
          />
        </label>
        <input
          type="number"
          min={0}
          max={last}
          value={revision}
          data-testid="revision-input"
          onChange={(e) => setRevision(Number((e.target as HTMLInputElement).value))}
        />
        <span class="muted">of {last}</span>
      </div>
      <ProblemBox error={replay.error} />
      {r ? (
        <div class="split">
          <div class="left">
            <div class="state" data-testid="replay-state">
              <div>
                as of event <b data-testid="replay-revision">{r.event.revision}</b>{' '}
                <b>{r.event.type}</b> at {r.event.timestamp}
              </div>
              <div>
                tip <code data-testid="replay-tip">{r.tip ?? '—'}</code> · active branch{' '}
                {r.branch.length} messages · window {r.window.messages} messages from{' '}
                <code>{short(r.window.cutAt)}</code> · {r.tree.nodes.length} nodes
              </div>
              <div>
                checkpoints:{' '}
                {r.checkpoints.length === 0 ? (
                  <span class="muted">none</span>
                ) : (
                  r.checkpoints.map((c) => (
                    <span key={c.label} class={`badge cp cp-${c.status}`}>
                      ⚑ {c.label} · {c.status}
                      {c.reason ? ` (${c.reason})` : ''}
                    </span>
                  ))
                )}
              </div>
              <div>
                compactions in force:{' '}
                <b data-testid="replay-inforce">{r.compactions.inForce.length}</b> of{' '}
                {r.compactions.decisions.length} decided
                {r.compactions.decisions.map((d) => (
                  <span key={d.id} class="badge rung">
                    {d.rung}{' '}
                    {d.rung === 'elide'
                      ? `${d.results.length} results`
                      : d.rung === 'strip_images'
                        ? ''
                        : `${d.coveredIds.length} msgs`}
                  </span>
                ))}
              </div>
              {r.pendingFailure ? (
                <div class="failed">
                  pending failed turn:{' '}
                  <code>{JSON.stringify(r.pendingFailure.error).slice(0, 200)}</code>
                </div>
              ) : null}
            </div>
            <TreePicture
              tree={r.tree}
              messages={data.messages}
              conversation={r.conversation}
              state={r}
              selected={selected}
              onSelect={setSelected}
            />
          </div>
          <div class="right">
            <Contexts id={id} upTo={r.event.revision} />
          </div>
        </div>
      ) : replay.loading ? (
        <p class="muted">replaying…</p>
      ) : null}
    </div>
  );
};

const Contexts = ({ id, upTo }: { id: string; upTo: number }) => {
  const list = useAsync(() => read('listContexts', { path: { id }, query: { limit: 100 } }), [id]);
  const [open, setOpen] = useState<string | null>(null);
  const items = (list.data?.items ?? []).filter((c) => c.revision <= upTo);
  return (
    <div data-testid="contexts">
      <h3>Contexts handed out up to here ({items.length})</h3>
      <ProblemBox error={list.error} />
      <table class="grid small">
        <tbody>
          {items.map((c) => (
            <tr
              key={c.contextId}
              data-testid="context-row"
              class={open === c.contextId ? 'selected' : ''}
            >
              <td class="num">rev {c.revision}</td>
              <td>
                {c.provider} · {c.model}
              </td>
              <td>{c.mode}</td>
              <td class="num">
                {c.estimatedTokens} / {c.budgetTokens}
              </td>
              <td>
                <button
                  data-testid="open-context"
                  onClick={() => setOpen(open === c.contextId ? null : c.contextId)}
                >
                  what the model saw
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {open ? <ContextDetail id={id} item={items.find((c) => c.contextId === open)!} /> : null}
    </div>
  );
};

const KINDS: [string, string][] = [
  ['system', 'system'],
  ['tools', 'tools'],
  ['messages', 'messages'],
  ['toolResults', 'tool results'],
  ['images', 'images'],
  ['snapshots', 'snapshot pages'],
  ['summaries', 'summaries'],
];

export const WindowBar = ({ sections }: { sections: Record<string, number> }) => {
  const total = KINDS.reduce((s, [k]) => s + (sections[k] ?? 0), 0) || 1;
  return (
    <div data-testid="window-bar">
      <div class="bar">
        {KINDS.map(([k, name]) =>
          (sections[k] ?? 0) > 0 ? (
            <div
              key={k}
              class={`seg seg-${k}`}
              style={{ width: `${(100 * sections[k]) / total}%` }}
              title={`${name}: ${sections[k]} tokens`}
            />
          ) : null,
        )}
      </div>
      <div class="legend">
        {KINDS.map(([k, name]) => (
          <span key={k}>
            <i class={`swatch seg-${k}`} /> {name} {sections[k] ?? 0}
          </span>
        ))}
      </div>
    </div>
  );
};

interface Assembled {
  sections?: Record<string, number>;
  request?: Record<string, unknown>;
  prefixHash?: string;
}

const ContextDetail = ({ id, item }: { id: string; item: ContextItem }) => {
  const rep = useAsync(
    () => read('reproduceContext', { path: { id, contextId: item.contextId } }),
    [id, item.contextId],
  );
  // The receipt's numbers as recorded (ContextAssembled) and the decisions in force then.
  const recorded = useAsync(async () => {
    const [events, state] = await Promise.all([
      read('events', { path: { id }, query: { fromRevision: item.revision, limit: 1 } }),
      read('replay', { path: { id }, query: { revision: String(item.revision), limit: 1 } }),
    ]);
    return {
      assembled: (events.items[0]?.data ?? {}) as Assembled,
      decisions: state.compactions.decisions,
    };
  }, [id, item.revision]);
  const r = rep.data;
  const decisions: Decision[] = (recorded.data?.decisions ?? []).filter((d) =>
    item.decisionIds.includes(d.id),
  );
  const pages = r?.body ? imagesIn(r.body) : [];
  return (
    <div class="context" data-testid="context-detail">
      <h3>
        Context <code>{short(item.contextId, 12)}</code> at revision {item.revision}
      </h3>
      <ProblemBox error={rep.error ?? recorded.error} />
      {r ? (
        <div class={`verdict ${r.match ? 'ok' : 'bad'}`} data-testid="hash-verdict">
          {r.match
            ? '✓ reproduced byte for byte: hash matches'
            : `✗ mismatch: ${r.mismatch?.reason ?? ''} ${r.mismatch?.detail ?? ''}`}
          <div class="muted">
            recorded <code>{r.recordedHash}</code> · reproduced <code>{r.bodyHash ?? '—'}</code>
          </div>
          <ul class="checks">
            {r.checks.map((c) => (
              <li key={c.name}>
                {c.equal ? '=' : '≠'} {c.name}: recorded{' '}
                <code>{JSON.stringify(c.recorded).slice(0, 80)}</code> · reproduced{' '}
                <code>{JSON.stringify(c.reproduced).slice(0, 80)}</code>
              </li>
            ))}
          </ul>
        </div>
      ) : rep.loading ? (
        <p class="muted">reproducing…</p>
      ) : null}
      <h4>Rungs (decisions the ladder used; new ones marked)</h4>
      <table class="grid small" data-testid="rungs">
        <tbody>
          {decisions.map((d) => (
            <tr key={d.id}>
              <td>
                <b>{d.rung}</b>
                {item.newDecisionIds.includes(d.id) ? (
                  <span class="badge">new</span>
                ) : (
                  <span class="muted"> in force</span>
                )}
              </td>
              <td>trigger: {d.trigger ?? '—'}</td>
              <td>
                {d.tokensBefore ?? '?'} → {d.tokensAfter ?? '?'} tokens
              </td>
              <td class="muted">
                {d.rung === 'elide' || d.rung === 'strip_images'
                  ? ''
                  : `${d.coveredIds.length} messages ${short(d.fromId)}…${short(d.toId)}`}
                {d.rung === 'snapshot' ? ` onto ${d.pageCount} ${d.shape} page(s)` : ''}
                {d.rung === 'elide' ? `${d.results.length} tool results elided` : ''}
              </td>
            </tr>
          ))}
          {decisions.length === 0 ? (
            <tr>
              <td class="muted">no rung was needed: the window fit as it was</td>
            </tr>
          ) : null}
        </tbody>
      </table>
      <h4>Ladder (every rung tried, in order, and why)</h4>
      {item.rungs === null ? (
        <p class="muted" data-testid="rung-reasons">
          not recorded: this context was handed out before receipts carried the rungs
        </p>
      ) : (
        <table class="grid small" data-testid="rung-reasons">
          <tbody>
            {item.rungs.map((g, i) => (
              <tr key={`${g.rung}-${i}`}>
                <td>
                  <b>{g.rung}</b> {g.applied ? <span class="badge">applied</span> : null}
                </td>
                <td>trigger: {g.trigger}</td>
                <td>
                  {g.tokensBefore} → {g.tokensAfter} tokens
                </td>
                <td>{g.reason}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h4>Window by kind (tokens, as estimated when handed out)</h4>
      {recorded.data?.assembled.sections ? (
        <WindowBar sections={recorded.data.assembled.sections} />
      ) : null}
      {pages.length > 0 ? (
        <>
          <h4>Snapshot pages ({pages.length})</h4>
          <div class="pages" data-testid="snapshot-pages">
            {pages.map((p, i) => (
              <a
                key={i}
                href={`data:${p.mediaType};base64,${p.data}`}
                target="_blank"
                rel="noreferrer"
              >
                <img
                  class="page"
                  alt={`snapshot page ${i + 1}`}
                  src={`data:${p.mediaType};base64,${p.data}`}
                />
              </a>
            ))}
          </div>
        </>
      ) : null}
      {r?.body ? <BodyView body={r.body} /> : null}
      <p>
        <a href={href('c', id, 'audit')}>the audit log</a>
      </p>
    </div>
  );
};

/** The provider body as a transcript: Anthropic's shape drawn block by block, others as JSON. */
const BodyView = ({ body }: { body: unknown }) => {
  const b = body as { system?: unknown; messages?: { role: string; content: string | Block[] }[] };
  const [raw, setRaw] = useState(false);
  return (
    <div class="body" data-testid="context-body">
      <h4>
        The body as sent{' '}
        <button onClick={() => setRaw(!raw)}>{raw ? 'readable' : 'raw JSON'}</button>
      </h4>
      {raw || !Array.isArray(b.messages) ? (
        <pre class="json">
          {JSON.stringify(
            body,
            (k, v: unknown) =>
              typeof v === 'string' && v.length > 2000
                ? `${v.slice(0, 200)}… (${v.length} chars)`
                : v,
            2,
          )}
        </pre>
      ) : (
        <>
          {b.system ? (
            <div class="message role-system">
              <div class="message-head">
                <b>system</b>
              </div>
              <pre class="json">
                {typeof b.system === 'string' ? b.system : JSON.stringify(b.system, null, 2)}
              </pre>
            </div>
          ) : null}
          {b.messages.map((m, i) => (
            <div key={i} class={`message role-${m.role}`}>
              <div class="message-head">
                <b>{m.role}</b> <span class="muted">#{i}</span>
              </div>
              {typeof m.content === 'string' ? (
                <div class="text-block">{m.content}</div>
              ) : (
                m.content.map((blk, j) =>
                  blk.type === 'image' ? (
                    <span key={j} class="muted">
                      [image: see the pages above]
                    </span>
                  ) : (
                    <BlockView key={j} block={blk} />
                  ),
                )
              )}
            </div>
          ))}
        </>
      )}
    </div>
  );
};
