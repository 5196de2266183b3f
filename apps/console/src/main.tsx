/** The operator console: sign-in, then the tenant's or the admin's views (hash routes). */
import { render } from 'preact';
import { useState } from 'preact/hooks';
import { api, ArborProblemError, type Role, session } from './api';
import { go, href, ProblemBox, useRoute } from './ui';
import { AdminView } from './views/admin';
import { ConversationsView } from './views/conversations';
import { ConversationView } from './views/conversation';

/** Which key this is: the admin key answers GET /v1/tenants, a tenant key GET /v1/conversations. */
const whoIs = async (key: string): Promise<Role> => {
  try {
    await api(key).call('listTenants', {});
    return 'admin';
  } catch (e) {
    if (!(e instanceof ArborProblemError) || (e.status !== 401 && e.status !== 403)) throw e;
  }
  await api(key).call('listConversations', { query: { limit: 1 } });
  return 'tenant';
};

const SignIn = () => {
  const [key, setKey] = useState('');
  const [error, setError] = useState<unknown>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      const role = await whoIs(key.trim());
      session.set(key.trim(), role);
      go(role === 'admin' ? 'admin' : 'conversations');
      location.reload();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <section class="signin" data-testid="signin">
      <h1>Arbor console</h1>
      <form onSubmit={(e) => void submit(e)}>
        <p>
          Sign in with a tenant API key (that tenant's conversations) or the admin key (tenants,
          keys, projector).
        </p>
        <input
          type="password"
          data-testid="key"
          autoComplete="off"
          placeholder="arb_… or the admin key"
          value={key}
          onInput={(e) => setKey((e.target as HTMLInputElement).value)}
        />
        <button type="submit" data-testid="sign-in">
          sign in
        </button>
        <p class="muted">
          The key stays in this tab only (sessionStorage): closing the tab forgets it.
        </p>
      </form>
      <ProblemBox error={error} />
    </section>
  );
};

const signOut = () => {
  if (session.role() === 'admin' && session.viewing() !== null) {
    // Back to the admin's own views.
    session.view(null);
    go('admin');
  } else {
    session.clear();
    go('');
  }
  location.reload();
};

const App = () => {
  const route = useRoute();
  const role = session.role();
  if (!session.key() || !role) return <SignIn />;
  const viewing = role === 'admin' ? session.viewing() : null;
  const [view, id, tab, ...args] = route;
  let body;
  if (role === 'admin' && (viewing === null || view === 'admin')) body = <AdminView />;
  else if (view === 'c' && id)
    body = <ConversationView key={id} id={id} tab={(tab as 'tree') ?? 'tree'} args={args} />;
  else body = <ConversationsView />;
  return (
    <>
      <header>
        <b>Arbor console</b>
        {role === 'tenant' || viewing !== null ? (
          <a href={href('conversations')}>conversations</a>
        ) : (
          <a href={href('admin')}>admin</a>
        )}
        <span class="who" data-testid="who">
          {viewing !== null
            ? `admin, reading tenant ${viewing} (read-only, each read audited)`
            : role === 'admin'
              ? 'admin'
              : 'tenant key'}
        </span>
        <button data-testid="sign-out" onClick={signOut}>
          {viewing !== null ? 'back to admin' : 'sign out'}
        </button>
      </header>
      <main>{body}</main>
    </>
  );
};

render(<App />, document.getElementById('app')!);
