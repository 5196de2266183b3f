import { type Harness, type HttpResult } from './harness';

/** Message and block builders for turns sent over HTTP. */
export const text = (t: string) => ({ type: 'text', text: t });
export const toolUse = (id: string, name = 'run', input: Record<string, unknown> = {}) => ({
  type: 'tool_use',
  id,
  name,
  input,
});
export const toolResult = (toolUseId: string, content: unknown = 'ok', isError?: boolean) => ({
  type: 'tool_result',
  tool_use_id: toolUseId,
  content,
  ...(isError === undefined ? {} : { is_error: isError }),
});

export interface MessageIn {
  id?: string;
  role: 'system' | 'user' | 'assistant';
  content: unknown[];
  [extra: string]: unknown;
}

export const msg = (role: MessageIn['role'], content: unknown[], id?: string): MessageIn => ({
  ...(id ? { id } : {}),
  role,
  content,
});
export const user = (t: string, id?: string) => msg('user', [text(t)], id);
export const assistant = (t: string, id?: string) => msg('assistant', [text(t)], id);

/** A plain exchange: one prompt, one final answer. */
export const exchange = (label: string): MessageIn[] => [
  user(`question ${label}`),
  assistant(`answer ${label}`),
];

/** A turn with a tool loop: prompt, call, result, final answer. */
export const toolTurn = (label: string, calls = 1): MessageIn[] => {
  const ids = Array.from({ length: calls }, (_, i) => `tu_${label}_${i}`);
  return [
    user(`do ${label}`),
    msg('assistant', [text(`calling for ${label}`), ...ids.map((id) => toolUse(id, 'run'))]),
    msg(
      'user',
      ids.map((id) => toolResult(id, `result of ${id}`)),
    ),
    assistant(`done ${label}`),
  ];
};

export interface TurnResult {
  turnId: string;
  messageIds: string[];
  tip: string;
  revision: number;
  replayed: boolean;
}

export interface AuditEvent {
  revision: number;
  type: string;
  data: Record<string, unknown> & { [k: string]: unknown };
  metadata: Record<string, unknown>;
}

export interface TreeNode {
  id: string;
  parentId: string | null;
  role: string;
  children: string[];
}

export const fail = (what: string, r: HttpResult): never => {
  throw new Error(`${what}: HTTP ${r.status} ${r.text.slice(0, 500)}`);
};

/** A tenant-scoped client: thin helpers over real HTTP calls that throw on unexpected statuses. */
export const clientFor = (h: Pick<Harness, 'call'>, key: string) => {
  const conv = (id: string, rest = '') => `/v1/conversations/${encodeURIComponent(id)}${rest}`;
  const c = {
    key,
    conv,
    get: (url: string, headers?: Record<string, string>) => h.call('GET', url, { key, headers }),
    post: (url: string, body?: unknown, headers?: Record<string, string>) =>
      h.call('POST', url, { key, body, headers }),
    put: (url: string, body?: unknown) => h.call('PUT', url, { key, body }),

    async start(body: Record<string, unknown> = {}): Promise<string> {
      const r = await c.post('/v1/conversations', body);
      if (r.status !== 201) fail('start', r);
      return r.body.id as string;
    },
    async turn(
      id: string,
      parentId: string | null | undefined,
      messages: MessageIn[],
      extra: Record<string, unknown> = {},
    ): Promise<TurnResult> {
      const body = { ...(parentId === undefined ? {} : { parentId }), messages, ...extra };
      const r = await c.post(conv(id, '/turns'), body);
      if (r.status !== 201) fail('turn', r);
      return r.body as TurnResult;
    },
    async moveTip(id: string, messageId: string): Promise<{ tip: string; revision: number }> {
      const r = await c.put(conv(id, '/tip'), { messageId });
      if (r.status !== 200) fail('moveTip', r);
      return r.body;
    },
    async checkpoint(id: string, label: string, messageId?: string) {
      const r = await c.post(conv(id, '/checkpoints'), { label, messageId });
      if (r.status !== 201) fail('checkpoint', r);
      return r.body as { label: string; messageId: string; status: string };
    },
    async conversation(id: string) {
      const r = await c.get(conv(id));
      if (r.status !== 200) fail('conversation', r);
      return r.body;
    },
    async tree(id: string): Promise<{
      tip: string | null;
      nodes: TreeNode[];
      branchPoints: string[];
      checkpoints: { label: string; messageId: string; status: string }[];
    }> {
      const r = await c.get(conv(id, '/tree'));
      if (r.status !== 200) fail('tree', r);
      return r.body;
    },
    /** The whole active branch, following cursors. */
    async branch(id: string, limit = 1000): Promise<Record<string, unknown>[]> {
      const out: Record<string, unknown>[] = [];
      let cursor: string | undefined;
      do {
        const q = `?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const r = await c.get(conv(id, `/messages${q}`));
        if (r.status !== 200) fail('messages', r);
        out.push(...r.body.items);
        cursor = r.body.next;
      } while (cursor);
      return out;
    },
    async branchIds(id: string): Promise<string[]> {
      return (await c.branch(id)).map((m) => m.id as string);
    },
    /** The conversation as of revision N, with its whole active branch (cursors followed). */
    async replay(id: string, revision: number, limit = 1000) {
      const r = await c.get(conv(id, `/replay?revision=${revision}&limit=${limit}`));
      if (r.status !== 200) fail(`replay ${revision}`, r);
      const items: Record<string, unknown>[] = [...r.body.branch.items];
      for (let next = r.body.branch.next; next;) {
        const q = `?revision=${revision}&limit=${limit}&cursor=${encodeURIComponent(next)}`;
        const p = await c.get(conv(id, `/replay${q}`));
        if (p.status !== 200) fail(`replay ${revision} page`, p);
        items.push(...p.body.branch.items);
        next = p.body.branch.next;
      }
      return { ...r.body, branch: { length: r.body.branch.length, items } };
    },
    /** Every context receipt of the conversation, following cursors. */
    async contexts(id: string): Promise<Record<string, unknown>[]> {
      const out: Record<string, unknown>[] = [];
      let url: string | null = conv(id, '/contexts?limit=3');
      while (url) {
        const r = await c.get(url);
        if (r.status !== 200) fail('contexts', r);
        out.push(...r.body.items);
        url = r.body.next
          ? conv(id, `/contexts?limit=3&cursor=${encodeURIComponent(r.body.next)}`)
          : null;
      }
      return out;
    },
    /** Every event of the conversation, following cursors. */
    async events(id: string, fromRevision = 0): Promise<AuditEvent[]> {
      const out: AuditEvent[] = [];
      let url: string | null = conv(id, `/events?fromRevision=${fromRevision}&limit=1000`);
      while (url) {
        const r = await c.get(url);
        if (r.status !== 200) fail('events', r);
        out.push(...r.body.items);
        url = r.body.next
          ? conv(id, `/events?cursor=${encodeURIComponent(r.body.next)}&limit=1000`)
          : null;
      }
      return out;
    },
  };
  return c;
};

export type Client = ReturnType<typeof clientFor>;

/** A new tenant and its client. */
export const newTenant = async (h: Harness, name?: string) => {
  const t = await h.createTenant(name);
  return { ...t, client: clientFor(h, t.apiKey) };
};

/**
 * A response reduced to what "answers exactly like" compares: status, content type and body, with
 * every occurrence of the given ids (in the path, detail or extensions) replaced by a placeholder.
 */
export const problemShape = (r: HttpResult, ...ids: string[]) => {
  let json = r.text;
  for (const id of ids) json = json.split(id).join('<id>');
  return { status: r.status, contentType: r.headers.get('content-type'), body: json };
};

export interface RouteCall {
  name: string;
  method: 'GET' | 'POST' | 'PUT';
  url: string;
  body?: unknown;
}

/**
 * Every tenant route of the contract on conversation `id`, naming message `messageId` (and a
 * checkpoint label) where the route takes one. Bodies are valid, so only existence decides.
 */
export const conversationRoutes = (id: string, messageId: string, label = 'cp'): RouteCall[] => {
  const base = `/v1/conversations/${id}`;
  const turn = { parentId: messageId, messages: exchange('probe') };
  return [
    { name: 'get', method: 'GET', url: base },
    { name: 'turns', method: 'POST', url: `${base}/turns`, body: turn },
    { name: 'tip', method: 'PUT', url: `${base}/tip`, body: { messageId } },
    { name: 'forks', method: 'POST', url: `${base}/forks`, body: { messageId } },
    {
      name: 'set checkpoint',
      method: 'POST',
      url: `${base}/checkpoints`,
      body: { label, messageId },
    },
    { name: 'checkpoints', method: 'GET', url: `${base}/checkpoints` },
    {
      name: 'rewind',
      method: 'POST',
      url: `${base}/checkpoints/${label}/rewind`,
      body: { digest: 'd' },
    },
    { name: 'resume', method: 'POST', url: `${base}/resume`, body: { keepMessages: 2 } },
    { name: 'failures', method: 'POST', url: `${base}/failures`, body: { input: 'i', error: 'e' } },
    { name: 'retry', method: 'GET', url: `${base}/retry` },
    { name: 'messages', method: 'GET', url: `${base}/messages?limit=2` },
    { name: 'message', method: 'GET', url: `${base}/messages/${messageId}` },
    { name: 'tree', method: 'GET', url: `${base}/tree` },
    { name: 'events', method: 'GET', url: `${base}/events?fromRevision=0&limit=2` },
    { name: 'export jsonl', method: 'GET', url: `${base}/export?format=jsonl` },
    { name: 'export markdown', method: 'GET', url: `${base}/export?format=markdown` },
    { name: 'replay', method: 'GET', url: `${base}/replay?revision=0&limit=2` },
    { name: 'contexts', method: 'GET', url: `${base}/contexts?limit=2` },
    { name: 'context', method: 'GET', url: `${base}/contexts/${messageId}` },
  ];
};
