/** The conversation's events, paged, and the hash-chain verdict over them. */
import { useState } from 'preact/hooks';
import { type AuditEvent, read } from '../api';
import { href, ProblemBox, useAsync } from '../ui';

/** A string field of an event's metadata, if it has one. */
const meta = (e: AuditEvent, key: string): string | undefined => {
  const v = e.metadata[key];
  return typeof v === 'string' ? v : undefined;
};

export const AuditView = ({ id }: { id: string }) => {
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const [openRow, setOpenRow] = useState<number | null>(null);
  const verdict = useAsync(() => read('verifyConversation', { path: { id } }), [id]);
  const page = useAsync(
    () => read('events', { path: { id }, query: { limit: 50, ...(cursor ? { cursor } : {}) } }),
    [id, cursor],
  );
  return (
    <div data-testid="audit">
      <div
        class={`verdict ${verdict.data ? (verdict.data.ok ? 'ok' : 'bad') : ''}`}
        data-testid="verdict"
      >
        {verdict.data ? (
          verdict.data.ok ? (
            <>
              ✓ hash chain verifies: {verdict.data.events} events, {verdict.data.chained} chained
              {verdict.data.unchained ? `, ${verdict.data.unchained} written before the chain` : ''}
            </>
          ) : (
            <>
              ✗ hash chain does NOT verify:{' '}
              {Object.entries(verdict.data.totals)
                .filter(([, n]) => n > 0)
                .map(([k, n]) => `${n} ${k}`)
                .join(', ')}
              <ul>
                {verdict.data.findings.map((f, i) => (
                  <li key={i}>
                    revision {f.revision} (position {f.position}): {f.kind} — {f.detail}
                  </li>
                ))}
              </ul>
            </>
          )
        ) : verdict.loading ? (
          'verifying…'
        ) : null}
      </div>
      <ProblemBox error={verdict.error ?? page.error} />
      <div class="toolbar">
        <button disabled={cursors.length < 2} onClick={() => setCursors(cursors.slice(0, -1))}>
          ← previous
        </button>
        <span class="muted">page {cursors.length}</span>
        <button
          data-testid="events-next"
          disabled={!page.data?.next}
          onClick={() => setCursors([...cursors, page.data?.next])}
        >
          next →
        </button>
      </div>
      <table class="grid small">
        <thead>
          <tr>
            <th>rev</th>
            <th>type</th>
            <th>actor</th>
            <th>time</th>
            <th>causation</th>
            <th>correlation</th>
            <th></th>
          </tr>
        </thead>
        <tbody>
          {(page.data?.items ?? []).map((e) => [
            <tr
              key={e.revision}
              data-testid="event-row"
              data-type={e.type}
              onClick={() => setOpenRow(openRow === e.revision ? null : e.revision)}
            >
              <td class="num">{e.revision}</td>
              <td>
                <b>{e.type}</b>
              </td>
              <td>{meta(e, 'actor') ?? '—'}</td>
              <td>{meta(e, 'timestamp')?.replace('T', ' ').slice(0, 23)}</td>
              <td>
                <code>{meta(e, 'causationId') ?? '—'}</code>
              </td>
              <td>
                <code>{e.metadata.correlationId ?? '—'}</code>
              </td>
              <td>
                <a
                  href={href('c', id, 'replay', String(e.revision))}
                  onClick={(ev) => ev.stopPropagation()}
                >
                  replay here
                </a>
              </td>
            </tr>,
            openRow === e.revision ? (
              <tr key={`${e.revision}-data`}>
                <td colSpan={7}>
                  <pre class="json">
                    {JSON.stringify({ data: e.data, metadata: e.metadata }, null, 2).slice(
                      0,
                      20000,
                    )}
                  </pre>
                </td>
              </tr>
            ) : null,
          ])}
        </tbody>
      </table>
    </div>
  );
};
