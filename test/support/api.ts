import { type Answer, ArborClient, type CallInit, type Schemas } from '@arbor/client';
import { type Harness } from './harness';
import { type HttpResult, transportOf } from './http';

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

/** A turn with a tool loop: prompt, call, result, final answer (call ids keep the id charset). */
export const toolTurn = (label: string, calls = 1): MessageIn[] => {
  const safe = label.replace(/[^A-Za-z0-9_.:|@/+=-]/g, '_');
  const ids = Array.from({ length: calls }, (_, i) => `tu_${safe}_${i}`);
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

export type TurnResult = Answer<'commitTurn'>;
export type AuditEvent = Schemas['AuditEvent'];
export type TreeNode = Schemas['TreeNode'];

const collect = async <T>(items: AsyncIterable<T>): Promise<T[]> => {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
};

/**
 * A tenant-scoped client: `arbor`, the one client (`@arbor/client`), sent through the harness's
 * raw `call` (so every answer is checked against the contract and the harness's restarts are
 * followed); the raw `get`/`post`/`put` for tests about statuses and bodies; and the shortcuts
 * tests use most, each one call of `arbor`. It never retries: a test sees the first answer.
 */
export const clientFor = (h: Pick<Harness, 'call'>, key: string) => {
  const conv = (id: string, rest = '') => `/v1/conversations/${encodeURIComponent(id)}${rest}`;
  const arbor = new ArborClient({
    baseUrl: '',
    apiKey: key,
    retries: 0,
    fetch: transportOf(h.call),
  });
  return {
    key,
    conv,
    arbor,
    get: (url: string, headers?: Record<string, string>) => h.call('GET', url, { key, headers }),
    post: (url: string, body?: unknown, headers?: Record<string, string>) =>
      h.call('POST', url, { key, body, headers }),
    put: (url: string, body?: unknown) => h.call('PUT', url, { key, body }),

    start: async (body: Record<string, unknown> = {}): Promise<string> =>
      (await arbor.startConversation(body as CallInit<'startConversation'>['body'])).id,
    /** Commits `messages` after `parentId` (undefined: the tip); no turnId unless in `extra`. */
    turn: (
      id: string,
      parentId: string | null | undefined,
      messages: MessageIn[],
      extra: Record<string, unknown> = {},
    ): Promise<TurnResult> =>
      arbor.call('commitTurn', {
        path: { id },
        body: {
          ...(parentId === undefined ? {} : { parentId }),
          messages,
          ...extra,
        } as CallInit<'commitTurn'>['body'],
      }),
    moveTip: (id: string, messageId: string) => arbor.moveTip(id, { messageId }),
    checkpoint: (id: string, label: string, messageId?: string) =>
      arbor.call('setCheckpoint', { path: { id }, body: { label, messageId } }),
    conversation: (id: string) => arbor.getConversation(id),
    tree: (id: string) => arbor.tree(id),
    /** The whole active branch, page by page. */
    branch: (id: string, limit = 1000) => collect(arbor.messages(id, limit)),
    branchIds: async (id: string): Promise<string[]> =>
      (await collect(arbor.messages(id, 1000))).map((m) => m.id),
    /** The conversation as of revision N, with its whole active branch. */
    replay: (id: string, revision: number, limit = 1000) => arbor.replay(id, revision, limit),
    /** Every context receipt of the conversation, in pages of 3. */
    contexts: (id: string) => collect(arbor.contexts(id, { limit: 3 })),
    /** Every event of the conversation from `fromRevision`. */
    events: (id: string, fromRevision = 0) =>
      collect(arbor.events(id, { fromRevision, limit: 1000 })),
  };
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
