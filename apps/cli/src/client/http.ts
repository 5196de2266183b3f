/** The client over HTTP: a running server at `url`, authenticated with a tenant API key. */
import { type ReplayView as Replay } from '@arbor/contract';
import { type Message, type MessageInput } from '@arbor/domain';
import { CliError, problemError } from '../errors';
import {
  type ArborClient,
  type CommitResult,
  type ConversationInfo,
  type ReproductionView,
  type TreeView,
} from './types';

interface HttpOptions {
  url: string;
  key: string;
  /** Per request, in milliseconds. */
  timeoutMs?: number;
}

const conv = (id: string, rest = '') => `/v1/conversations/${encodeURIComponent(id)}${rest}`;

export const createHttpClient = (options: HttpOptions): ArborClient => {
  const base = options.url.replace(/\/+$/, '');
  const call = async (method: string, path: string, body?: unknown): Promise<Response> => {
    let res: Response;
    try {
      res = await fetch(base + path, {
        method,
        headers: {
          authorization: `Bearer ${options.key}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(options.timeoutMs ?? 60_000),
      });
    } catch (e) {
      throw new CliError('unreachable', `${method} ${base}${path}: ${String(e)}`);
    }
    if (!res.ok) {
      const text = await res.text();
      let problem: Record<string, unknown> = {};
      try {
        problem = JSON.parse(text) as Record<string, unknown>;
      } catch {
        problem = {};
      }
      throw problemError(problem.code, problem.detail ?? problem.title, `${res.status} ${text}`);
    }
    return res;
  };
  const json = async <T>(method: string, path: string, body?: unknown): Promise<T> =>
    (await (await call(method, path, body)).json()) as T;
  const text = async (path: string): Promise<string> => (await call('GET', path)).text();

  return {
    mode: 'http',
    target: base,
    async startConversation(body) {
      try {
        const r = await json<{ id: string }>('POST', '/v1/conversations', body);
        return { id: r.id, created: true };
      } catch (e) {
        if (e instanceof CliError && e.code === 'conversation_exists' && body.id !== undefined)
          return { id: body.id, created: false };
        throw e;
      }
    },
    commitTurn: (
      id,
      body: { turnId?: string; parentId: string | null; messages: MessageInput[] },
    ) => json<CommitResult>('POST', conv(id, '/turns'), body),
    moveTip: (id, messageId) => json('PUT', conv(id, '/tip'), { messageId }),
    async setCheckpoint(id, label, messageId) {
      await json('POST', conv(id, '/checkpoints'), { label, messageId, replace: true });
    },
    conversation: (id) => json<ConversationInfo>('GET', conv(id)),
    tree: (id) => json<TreeView>('GET', conv(id, '/tree')),
    async messages(id, scope) {
      if (scope === 'tree') {
        const lines = (await text(conv(id, '/export?format=jsonl&scope=tree'))).split('\n');
        return lines.filter((l) => l !== '').map((l) => JSON.parse(l) as Message);
      }
      const out: Message[] = [];
      for (let cursor: string | undefined = ''; cursor !== undefined;) {
        const q = `?limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const page: { items: Message[]; next?: string } = await json(
          'GET',
          conv(id, `/messages${q}`),
        );
        out.push(...page.items);
        cursor = page.next;
      }
      return out;
    },
    exportText: (id, format, scope) => text(conv(id, `/export?format=${format}&scope=${scope}`)),
    async replay(id, revision) {
      let answer: Replay | undefined;
      const items: Replay['branch']['items'] = [];
      for (let cursor: string | undefined = ''; cursor !== undefined;) {
        const q = `?revision=${revision}&limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const page: Replay = await json('GET', conv(id, `/replay${q}`));
        answer ??= page;
        items.push(...page.branch.items);
        cursor = page.branch.next;
      }
      const { next: _next, ...branch } = (answer as Replay).branch;
      return { ...(answer as Replay), branch: { ...branch, items } };
    },
    reproduce: (id, contextId) =>
      json<ReproductionView>('GET', conv(id, `/contexts/${encodeURIComponent(contextId)}`)),
    close: async () => undefined,
  };
};
