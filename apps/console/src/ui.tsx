/** Small shared pieces: problem display, async loading, the hash route. */
import { useCallback, useEffect, useState } from 'preact/hooks';
import { ArborProblemError } from './api';

export const ProblemBox = ({ error }: { error: unknown }) => {
  if (error === null || error === undefined) return null;
  const p = error instanceof ArborProblemError ? error.problem : null;
  return (
    <div class="problem" role="alert" data-testid="problem">
      {p ? (
        <>
          <div>
            <b>{p.status}</b> <code data-testid="problem-code">{p.code}</code> — {p.title}
          </div>
          {p.detail ? <div>{p.detail}</div> : null}
          <details>
            <summary>problem+json</summary>
            <pre class="json">{JSON.stringify(p, null, 2)}</pre>
          </details>
        </>
      ) : (
        <div>{String(error)}</div>
      )}
    </div>
  );
};

export const useAsync = <T,>(load: () => Promise<T>, deps: unknown[]) => {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({
    loading: true,
  });
  const reload = useCallback(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => live && setState({ data, loading: false }),
      (error: unknown) => live && setState({ error, loading: false }),
    );
    return () => {
      live = false;
    };
  }, deps);
  useEffect(reload, [reload]);
  return { ...state, reload };
};

export const useRoute = (): string[] => {
  const parse = () =>
    location.hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
  const [route, setRoute] = useState(parse);
  useEffect(() => {
    const on = () => setRoute(parse());
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return route;
};

export const go = (...parts: string[]) => {
  location.hash = '#/' + parts.map(encodeURIComponent).join('/');
};

export const href = (...parts: string[]) => '#/' + parts.map(encodeURIComponent).join('/');

export const short = (id: string | null | undefined, n = 10) =>
  id == null ? '—' : id.length > n ? `${id.slice(0, n)}…` : id;

export const download = (name: string, type: string, content: string) => {
  const url = URL.createObjectURL(new Blob([content], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
};
