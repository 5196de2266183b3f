/**
 * The tenant's conversations: filtered by a title prefix and sorted by the server
 * (`GET …/conversations?q&sort&order`, each order an index of the read models), one keyset page
 * at a time, so 100,000 conversations are pages of 50, never one answer.
 */
import { useEffect, useState } from 'preact/hooks';
import { read } from '../api';
import { href, ProblemBox, short, useAsync } from '../ui';

type Sort = 'created' | 'lastActivity' | 'title';
type Order = 'asc' | 'desc';

const PAGE = 50;

export const ConversationsView = () => {
  const [typed, setTyped] = useState('');
  const [q, setQ] = useState('');
  const [sort, setSort] = useState<Sort>('created');
  const [order, setOrder] = useState<Order>('asc');
  // The prefix is sent 300 ms after the last key stroke; a new query starts at page 1.
  useEffect(() => {
    const t = setTimeout(() => setQ(typed), 300);
    return () => clearTimeout(t);
  }, [typed]);
  // A title prefix is answered by the title index: it lists by title.
  const effectiveSort: Sort = q !== '' ? 'title' : sort;
  // The cursors of the pages before this one, so "previous" works without the server going back;
  // they belong to one list (prefix, sort, order): another list starts at its first page.
  const list = `${q}\n${effectiveSort}\n${order}`;
  const [paging, setPaging] = useState<{ list: string; cursors: (string | undefined)[] }>({
    list,
    cursors: [undefined],
  });
  const cursors = paging.list === list ? paging.cursors : [undefined];
  const setCursors = (next: (string | undefined)[]) => setPaging({ list, cursors: next });
  const cursor = cursors[cursors.length - 1];
  const page = useAsync(() => {
    return read('listConversations', {
      query: {
        limit: PAGE,
        ...(q !== '' ? { q } : {}),
        ...(effectiveSort !== 'created' ? { sort: effectiveSort } : {}),
        ...(order !== 'asc' ? { order } : {}),
        ...(cursor ? { cursor } : {}),
      },
    });
  }, [cursor, q, effectiveSort, order]);
  const rows = page.data?.items ?? [];
  return (
    <section data-testid="conversations">
      <h2>Conversations</h2>
      <div class="toolbar">
        <input
          data-testid="filter"
          placeholder="title starts with… (exact case)"
          value={typed}
          onInput={(e) => setTyped((e.target as HTMLInputElement).value)}
        />
        <label>
          sort{' '}
          <select
            data-testid="sort"
            value={effectiveSort}
            disabled={q !== ''}
            title={q !== '' ? 'a title prefix lists by title' : ''}
            onChange={(e) => setSort((e.target as HTMLSelectElement).value as Sort)}
          >
            <option value="created">created</option>
            <option value="lastActivity">last activity</option>
            <option value="title">title</option>
          </select>
        </label>
        <select
          data-testid="order"
          value={order}
          onChange={(e) => setOrder((e.target as HTMLSelectElement).value as Order)}
        >
          <option value="asc">ascending</option>
          <option value="desc">descending</option>
        </select>
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
      {!page.loading && rows.length === 0 ? <p class="muted">no conversation here</p> : null}
    </section>
  );
};
