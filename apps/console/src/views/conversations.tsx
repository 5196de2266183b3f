/** The tenant's conversations: one page at a time (cursor paging), filtered and sorted in the page. */
import { useMemo, useState } from 'preact/hooks';
import { type Conversation, conversationsBase, get, type Page } from '../api';
import { href, ProblemBox, short, useAsync } from '../ui';

type SortKey = 'created' | 'activity' | 'size' | 'title';

const PAGE = 50;

export const ConversationsView = () => {
  // The cursors of the pages before this one, so "previous" works without the server going back.
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const [filter, setFilter] = useState('');
  const [sort, setSort] = useState<SortKey>('created');
  const page = useAsync(
    () =>
      get<Page<Conversation>>(
        `${conversationsBase()}?limit=${PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      ),
    [cursor],
  );
  const rows = useMemo(() => {
    const f = filter.trim().toLowerCase();
    const items = (page.data?.items ?? []).filter(
      (c) =>
        f === '' ||
        c.id.toLowerCase().includes(f) ||
        (c.title ?? '').toLowerCase().includes(f) ||
        JSON.stringify(c.metadata ?? {})
          .toLowerCase()
          .includes(f),
    );
    const by: Record<SortKey, (a: Conversation, b: Conversation) => number> = {
      created: () => 0,
      activity: (a, b) => (b.updatedAt ?? '').localeCompare(a.updatedAt ?? ''),
      size: (a, b) => (b.counts?.messages ?? 0) - (a.counts?.messages ?? 0),
      title: (a, b) => (a.title ?? '').localeCompare(b.title ?? ''),
    };
    return [...items].sort(by[sort]);
  }, [page.data, filter, sort]);
  return (
    <section data-testid="conversations">
      <h2>Conversations</h2>
      <div class="toolbar">
        <input
          data-testid="filter"
          placeholder="filter this page: title, id, metadata"
          value={filter}
          onInput={(e) => setFilter((e.target as HTMLInputElement).value)}
        />
        <label>
          sort{' '}
          <select
            data-testid="sort"
            value={sort}
            onChange={(e) => setSort((e.target as HTMLSelectElement).value as SortKey)}
          >
            <option value="created">created (server order)</option>
            <option value="activity">last activity</option>
            <option value="size">size</option>
            <option value="title">title</option>
          </select>
        </label>
        <button disabled={cursors.length < 2} onClick={() => setCursors(cursors.slice(0, -1))}>
          ← previous
        </button>
        <span class="muted">page {cursors.length}</span>
        <button
          data-testid="next-page"
          disabled={!page.data?.next}
          onClick={() => setCursors([...cursors, page.data?.next])}
        >
          next →
        </button>
      </div>
      <ProblemBox error={page.error} />
      <table class="grid">
        <thead>
          <tr>
            <th>title</th>
            <th>messages</th>
            <th>turns</th>
            <th>last activity</th>
            <th>lineage</th>
            <th>metadata</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((c) => (
            <tr key={c.id} data-testid="conversation-row" data-id={c.id}>
              <td>
                <a href={href('c', c.id, 'tree')}>{c.title ?? <i>untitled</i>}</a>
                <div class="muted">
                  <code>{c.id}</code>
                </div>
              </td>
              <td class="num">{c.counts?.messages ?? '—'}</td>
              <td class="num">{c.counts?.turns ?? '—'}</td>
              <td>{c.updatedAt?.replace('T', ' ').slice(0, 19) ?? '—'}</td>
              <td>
                {c.lineage.forkedFrom ? (
                  <a href={href('c', c.lineage.forkedFrom.conversationId, 'tree')}>
                    forked from {short(c.lineage.forkedFrom.conversationId, 14)}
                  </a>
                ) : (
                  <span class="muted">root</span>
                )}
              </td>
              <td class="meta">
                {c.metadata ? <code>{JSON.stringify(c.metadata).slice(0, 120)}</code> : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {page.loading ? <p class="muted">loading…</p> : null}
      {!page.loading && rows.length === 0 ? (
        <p class="muted">no conversation on this page</p>
      ) : null}
    </section>
  );
};
