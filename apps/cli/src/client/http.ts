/**
 * The client over HTTP: `@arbor/client` against a running server at `url`, authenticated with a
 * tenant API key, its answers and problems mapped to what the commands expect.
 */
import {
  ArborClient as ArborHttpClient,
  ArborNetworkError,
  ArborProblemError,
} from '@arbor/client';
import { type Message } from '@arbor/domain';
import { CliError, problemError } from '../errors';
import {
  type ArborClient,
  type CommitResult,
  type ConversationInfo,
  type ReplayView,
  type ReproductionView,
  type TreeView,
} from './types';

interface HttpOptions {
  url: string;
  key: string;
  /** Per request, in milliseconds. */
  timeoutMs?: number;
}

/** A problem answered by the server or no answer at all, as the CLI reports it. */
const cliError = (e: unknown): unknown => {
  if (e instanceof ArborProblemError)
    return problemError(e.code, e.problem.detail ?? e.problem.title, e.message);
  if (e instanceof ArborNetworkError) return new CliError('unreachable', e.message);
  return e;
};

const mapped =
  <A extends unknown[], R>(f: (...args: A) => Promise<R>) =>
  async (...args: A): Promise<R> => {
    try {
      return await f(...args);
    } catch (e) {
      throw cliError(e);
    }
  };

const collect = async <T>(items: AsyncIterable<T>): Promise<T[]> => {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
};

// The commands hold domain values, whose free JSON fields are typed `unknown`; the wire's are
// `JsonValue`. They are JSON either way (parsed from files or answers).
type WireStart = Parameters<ArborHttpClient['startConversation']>[0];
type WireTurn = Parameters<ArborHttpClient['commitTurn']>[1];

export const createHttpClient = (options: HttpOptions): ArborClient => {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const arbor = new ArborHttpClient({
    baseUrl: options.url,
    apiKey: options.key,
    // Each attempt gets its own deadline; the client's retries and backoff stay its own.
    fetch: (input, init) =>
      fetch(input, {
        ...init,
        signal: init?.signal
          ? AbortSignal.any([init.signal, AbortSignal.timeout(timeoutMs)])
          : AbortSignal.timeout(timeoutMs),
      }),
  });
  const exportText = (id: string, format: 'jsonl' | 'markdown', scope: 'tree' | 'branch') =>
    arbor.call('export', { path: { id }, query: { format, scope } }) as Promise<string>;

  return {
    mode: 'http',
    target: options.url.replace(/\/+$/, ''),
    startConversation: mapped(async (body) => {
      try {
        return { id: (await arbor.startConversation(body as WireStart)).id, created: true };
      } catch (e) {
        if (e instanceof ArborProblemError && e.is('conversation_exists') && body.id !== undefined)
          return { id: body.id, created: false };
        throw e;
      }
    }),
    commitTurn: mapped(
      async (id, body) => (await arbor.commitTurn(id, body as WireTurn)) as CommitResult,
    ),
    moveTip: mapped((id, messageId) => arbor.moveTip(id, { messageId })),
    setCheckpoint: mapped(async (id, label, messageId) => {
      await arbor.call('setCheckpoint', {
        path: { id },
        body: { label, messageId, replace: true },
      });
    }),
    conversation: mapped(
      async (id) => (await arbor.getConversation(id)) as unknown as ConversationInfo,
    ),
    tree: mapped(async (id) => (await arbor.tree(id)) as unknown as TreeView),
    messages: mapped(async (id, scope) => {
      if (scope === 'branch') return (await collect(arbor.messages(id, 1000))) as Message[];
      const lines = (await exportText(id, 'jsonl', 'tree')).split('\n');
      return lines.filter((l) => l !== '').map((l) => JSON.parse(l) as Message);
    }),
    exportText: mapped(exportText),
    replay: mapped(async (id, revision) => (await arbor.replay(id, revision)) as ReplayView),
    reproduce: mapped(
      async (id, contextId) =>
        (await arbor.call('reproduceContext', {
          path: { id, contextId },
        })) as unknown as ReproductionView,
    ),
    close: async () => undefined,
  };
};
