/** The console's only way to the server: the public HTTP API, with the key of this tab. */

export interface Problem {
  status: number;
  code: string;
  title: string;
  detail?: string;
  body: Record<string, unknown>;
}

export class ApiError extends Error {
  constructor(readonly problem: Problem) {
    super(`${problem.status} ${problem.code}: ${problem.detail ?? problem.title}`);
  }
}

const KEY = 'arbor.console.key';
const ROLE = 'arbor.console.role';
const TENANT = 'arbor.console.tenant';

export type Role = 'tenant' | 'admin';

/** Kept for this browser tab only (sessionStorage): closing the tab forgets it. */
export const session = {
  key: (): string | null => sessionStorage.getItem(KEY),
  role: (): Role | null => sessionStorage.getItem(ROLE) as Role | null,
  /** The tenant whose data the admin is reading (through the admin's own routes), or null. */
  viewing: (): string | null => sessionStorage.getItem(TENANT),
  set(key: string, role: Role): void {
    sessionStorage.setItem(KEY, key);
    sessionStorage.setItem(ROLE, role);
  },
  view(tenantId: string | null): void {
    if (tenantId === null) sessionStorage.removeItem(TENANT);
    else sessionStorage.setItem(TENANT, tenantId);
  },
  clear(): void {
    sessionStorage.clear();
  },
};

/**
 * Where this tab reads conversations: the tenant's own routes, or, for the admin reading a
 * tenant, the admin's read-only routes `/v1/admin/tenants/{tenantId}/conversations…` (each read
 * recorded by the server as an `AdminDataRead` event, actor admin).
 */
export const conversationsBase = (): string => {
  const tenant = session.role() === 'admin' ? session.viewing() : null;
  return tenant === null
    ? '/v1/conversations'
    : `/v1/admin/tenants/${encodeURIComponent(tenant)}/conversations`;
};

/** True while the admin reads a tenant's data: the routes are read-only, so no actions. */
export const readOnly = (): boolean => session.role() === 'admin' && session.viewing() !== null;

const toProblem = (status: number, text: string): Problem => {
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    body = { detail: text.slice(0, 500) };
  }
  return {
    status,
    code: typeof body.code === 'string' ? body.code : `http_${status}`,
    title: typeof body.title === 'string' ? body.title : `HTTP ${status}`,
    detail: typeof body.detail === 'string' ? body.detail : undefined,
    body,
  };
};

export const request = async (
  method: string,
  path: string,
  body?: unknown,
  key: string | null = session.key(),
): Promise<Response> => {
  const res = await fetch(path, {
    method,
    headers: {
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new ApiError(toProblem(res.status, await res.text()));
  return res;
};

export const json = async <T>(
  method: string,
  path: string,
  body?: unknown,
  key?: string | null,
): Promise<T> => {
  const res = await request(method, path, body, key);
  return (res.status === 204 ? null : await res.json()) as T;
};

export const get = <T>(path: string) => json<T>('GET', path);
export const text = async (path: string): Promise<string> => (await request('GET', path)).text();

export const conv = (id: string, rest = '') =>
  `${conversationsBase()}/${encodeURIComponent(id)}${rest}`;

// --- Wire shapes the console reads (the fields it uses; the server may send more) ---

export type Block =
  | { type: 'text'; text: string }
  | { type: 'image'; source: { type: 'base64'; media_type: string; data: string } }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | {
      type: 'tool_result';
      tool_use_id: string;
      content: string | Block[];
      is_error?: boolean;
    }
  | { type: 'thinking'; thinking: string; signature?: string }
  | { type: 'redacted_thinking'; data: string };

export interface Message {
  id: string;
  parentId: string | null;
  role: 'system' | 'user' | 'assistant';
  content: Block[];
  model?: string;
  usage?: Record<string, unknown>;
  pinned?: boolean;
  createdAt?: string;
  turnId?: string;
}

export interface Conversation {
  id: string;
  title: string | null;
  tip: string | null;
  revision: number;
  lineage: {
    forkedFrom: { conversationId: string; messageId: string } | null;
    forks: { conversationId: string; messageId?: string | null; [k: string]: unknown }[];
  };
  counts?: { messages: number; turns: number };
  metadata?: Record<string, unknown>;
  cutAt?: string | null;
  createdAt?: string;
  updatedAt?: string;
}

export interface TreeNode {
  id: string;
  parentId: string | null;
  role: string;
  children: string[];
}

export interface Checkpoint {
  label: string;
  messageId: string;
  status: 'active' | 'rewound' | 'dropped';
  reason?: string;
  [k: string]: unknown;
}

export interface Tree {
  tip: string | null;
  nodes: TreeNode[];
  branchPoints: string[];
  checkpoints: Checkpoint[];
}

export interface Decision {
  id: string;
  rung: string;
  trigger?: string;
  fromId?: string;
  toId?: string;
  coveredIds?: string[];
  results?: { messageId: string; toolUseId?: string; originalTokens?: number }[];
  pageCount?: number;
  shape?: string;
  tokensBefore?: number;
  tokensAfter?: number;
  [k: string]: unknown;
}

export interface Replay {
  revision: number;
  /** Stream revision only: tenant answers carry no global position. */
  event: { revision: number; type: string; timestamp: string };
  conversation: Conversation;
  tip: string | null;
  branch: { length: number; items: Message[]; next?: string };
  tree: Tree;
  checkpoints: Checkpoint[];
  window: { cutAt: string | null; tip: string | null; messages: number };
  resume: unknown;
  compactions: { decisions: Decision[]; inForce: unknown[]; notInForce: unknown[] };
  pendingFailure: { failureId?: string; input?: unknown; error?: unknown } | null;
  lastContext: { contextId: string; revision: number } | null;
}

export interface AuditEvent {
  /** Stream revision only: tenant answers carry no global position. */
  revision: number;
  type: string;
  data: Record<string, unknown>;
  metadata: {
    actor?: string;
    timestamp?: string;
    causationId?: string;
    correlationId?: string;
    [k: string]: unknown;
  };
}

export interface Page<T> {
  items: T[];
  next?: string;
}

/** The wire's own types (`@arbor/contract`), so the console cannot drift from the API. */
export type { ContextSummary as ContextItem, Reproduction } from '@arbor/contract';

export interface Verdict {
  ok: boolean;
  events: number;
  chained: number;
  unchained: number;
  lastRevision: number;
  totals: Record<string, number>;
  findings: { kind: string; revision: number; position: string; detail: string }[];
}

/**
 * Follows `GET …/{id}/stream` (Server-Sent Events) with the key in the Authorization header:
 * EventSource cannot send one, so this reads the answer with fetch as a stream and splits it into
 * frames. `onEvent` gets each event's revision; on a dropped stream it reconnects after `retry`
 * ms with `Last-Event-ID`, so nothing is missed. Returns the function that stops it.
 */
export const followStream = (
  id: string,
  fromRevision: number,
  onEvent: (revision: number) => void,
  onState: (state: 'open' | 'reconnecting') => void = () => undefined,
): (() => void) => {
  const abort = new AbortController();
  let last = fromRevision;
  let retry = 2000;
  const run = async (): Promise<void> => {
    while (!abort.signal.aborted) {
      try {
        const key = session.key();
        const res = await fetch(conv(id, '/stream'), {
          headers: {
            ...(key ? { authorization: `Bearer ${key}` } : {}),
            'last-event-id': String(last),
          },
          signal: abort.signal,
        });
        if (!res.ok || !res.body) throw new ApiError(toProblem(res.status, await res.text()));
        onState('open');
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = '';
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          buffer += value;
          let cut: number;
          while ((cut = buffer.indexOf('\n\n')) >= 0) {
            const frame = buffer.slice(0, cut);
            buffer = buffer.slice(cut + 2);
            for (const line of frame.split('\n')) {
              if (line.startsWith('retry: ')) retry = Number(line.slice(7)) || retry;
              if (line.startsWith('id: ')) {
                const revision = Number(line.slice(4));
                if (Number.isFinite(revision) && revision > last) {
                  last = revision;
                  onEvent(revision);
                }
              }
            }
          }
        }
      } catch (e) {
        if (abort.signal.aborted) return;
        // A refusal (404, 401) does not get better by retrying.
        if (e instanceof ApiError && e.problem.status < 500 && e.problem.status !== 429) return;
      }
      if (abort.signal.aborted) return;
      onState('reconnecting');
      await new Promise((r) => setTimeout(r, retry));
    }
  };
  void run();
  return () => abort.abort();
};
