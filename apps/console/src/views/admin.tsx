/**
 * The admin's views: tenants (create), their keys (issue, revoke), the projector, and a tenant's
 * data. A tenant's data is read with the admin key through the admin's own read-only routes,
 * `/v1/admin/tenants/{tenantId}/conversations…`; the server records every such read as an
 * `AdminDataRead` event (actor admin) in the tenant's `audit-<tenantId>.admin-reads` stream.
 */
import { useState } from 'preact/hooks';
import { api, session } from '../api';
import { go, ProblemBox, useAsync } from '../ui';

export const AdminView = () => {
  const tenants = useAsync(() => api().call('listTenants', {}), []);
  const projector = useAsync(() => api().call('projectorStatus', {}), []);
  const [open, setOpen] = useState<string | null>(null);
  const [name, setName] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [shown, setShown] = useState<string | null>(null);
  const create = async () => {
    setError(null);
    try {
      const r = await api().call('createTenant', { body: { name: name || undefined } });
      setShown(`tenant ${r.id} created; its first API key (shown once): ${r.apiKey}`);
      tenants.reload();
    } catch (e) {
      setError(e);
    }
  };
  const view = (tenantId: string) => {
    session.view(tenantId);
    go('conversations');
    location.reload();
  };
  return (
    <section data-testid="admin">
      <h2>Administration</h2>
      <h3>Projector</h3>
      <ProblemBox error={projector.error} />
      {projector.data ? (
        <pre class="json" data-testid="projector">
          {JSON.stringify(projector.data, null, 2)}
        </pre>
      ) : null}
      <button onClick={projector.reload}>refresh</button>
      <h3>Tenants</h3>
      <div class="toolbar">
        <input
          data-testid="tenant-name"
          placeholder="new tenant name"
          value={name}
          onInput={(e) => setName((e.target as HTMLInputElement).value)}
        />
        <button data-testid="create-tenant" onClick={() => void create()}>
          create tenant
        </button>
      </div>
      {shown ? (
        <div class="done" data-testid="done">
          {shown}
        </div>
      ) : null}
      <ProblemBox error={error ?? tenants.error} />
      <table class="grid">
        <thead>
          <tr>
            <th>tenant</th>
            <th>name</th>
            <th>keys (active)</th>
            <th></th>
          </tr>
        </thead>
        <tbody>
          {(tenants.data?.items ?? []).map((t) => [
            <tr key={t.id} data-testid="tenant-row" data-id={t.id}>
              <td>
                <code>{t.id}</code>
              </td>
              <td>{t.name ?? <i>unnamed</i>}</td>
              <td class="num">
                {t.keys} ({t.activeKeys})
              </td>
              <td>
                <button data-testid="keys" onClick={() => setOpen(open === t.id ? null : t.id)}>
                  keys
                </button>{' '}
                <button data-testid="open-tenant" onClick={() => view(t.id)}>
                  open its data
                </button>
              </td>
            </tr>,
            open === t.id ? (
              <tr key={`${t.id}-keys`}>
                <td colSpan={4}>
                  <Keys tenantId={t.id} onChange={tenants.reload} />
                </td>
              </tr>
            ) : null,
          ])}
        </tbody>
      </table>
    </section>
  );
};

const Keys = ({ tenantId, onChange }: { tenantId: string; onChange: () => void }) => {
  const keys = useAsync(() => api().call('listKeys', { path: { tenantId } }), [tenantId]);
  const [error, setError] = useState<unknown>(null);
  const [shown, setShown] = useState<string | null>(null);
  const run = async (f: () => Promise<unknown>) => {
    setError(null);
    try {
      await f();
      keys.reload();
      onChange();
    } catch (e) {
      setError(e);
    }
  };
  return (
    <div data-testid="key-list">
      <ProblemBox error={error ?? keys.error} />
      {shown ? <div class="done">{shown}</div> : null}
      <table class="grid small">
        <tbody>
          {(keys.data?.items ?? []).map((k) => (
            <tr key={k.keyId} data-testid="key-row">
              <td>
                <code>{k.keyId}</code>
              </td>
              <td>{k.label ?? '—'}</td>
              <td>{k.revoked ? 'revoked' : 'active'}</td>
              <td>
                {!k.revoked ? (
                  <button
                    data-testid="revoke"
                    onClick={() =>
                      void run(() =>
                        api().call('revokeKey', { path: { tenantId, keyId: k.keyId } }),
                      )
                    }
                  >
                    revoke
                  </button>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <button
        data-testid="issue-key"
        onClick={() =>
          void run(async () => {
            const r = await api().call('issueKey', {
              path: { tenantId },
              body: { label: 'console' },
            });
            setShown(`new key (shown once): ${r.apiKey}`);
          })
        }
      >
        issue a key
      </button>
    </div>
  );
};
