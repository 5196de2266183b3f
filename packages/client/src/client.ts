/**
 * A small fetch wrapper typed by the generated OpenAPI types: `call(operationId, init)` reaches
 * every route; the named methods add what integrators need on top (a fresh `turnId` per turn,
 * page iterators). Hand-written rather than openapi-fetch so the retry rule (which requests may
 * be sent again) and the problem type by `code` live in one place; it has no runtime dependency.
 */
import { operationRoutes } from './openapi';
import { ArborProblemError, ArborNetworkError, isProblemBody } from './problems';
import {
  type Answer,
  type CallInit,
  type MessageInput,
  type OperationId,
  type PagedOperationId,
  type PageItem,
  type Schemas,
} from './types';

export interface ArborClientOptions {
  /** The server, e.g. `http://127.0.0.1:3000`. */
  baseUrl: string;
  /** A tenant key (`arb_<keyId>_<secret>`) or the admin key for the admin routes. */
  apiKey?: string;
  /** Default: the global fetch. */
  fetch?: typeof fetch;
  /** How many times a retryable call is sent again (default 3). */
  retries?: number;
  /** First backoff in ms, doubled per attempt; a `Retry-After` header wins (default 100). */
  retryDelayMs?: number;
  /** Makes the turnId of a commit that has none (default: `crypto.randomUUID()`). */
  newTurnId?: () => string;
  /** Headers sent with every call. */
  headers?: Record<string, string>;
}

/** 5xx worth sending again (507 out of space and 501 are not); 409 concurrency_conflict too. */
const RETRY_STATUS = new Set([500, 502, 503, 504]);
const SAFE_METHODS = new Set(['GET', 'PUT', 'DELETE']);

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });

type StartBody = NonNullable<CallInit<'startConversation'>['body']>;
type CommitBody = Omit<Schemas['CommitTurnBody'], 'turnId'> & { turnId?: string };
type ContextBody = CallInit<'buildContext'>['body'];

export class ArborClient {
  private readonly fetchImpl: typeof fetch;
  private readonly baseUrl: string;
  private readonly retries: number;
  private readonly retryDelayMs: number;
  private readonly newTurnId: () => string;

  constructor(private readonly options: ArborClientOptions) {
    this.fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.retries = options.retries ?? 3;
    this.retryDelayMs = options.retryDelayMs ?? 100;
    this.newTurnId = options.newTurnId ?? (() => globalThis.crypto.randomUUID());
  }

  /**
   * Any route by its operationId. Resolves with the 2xx answer; rejects with an
   * `ArborProblemError` (its `problem.code` narrowed to the codes this route answers) or, when
   * no answer came after every retry, an `ArborNetworkError`.
   */
  async call<K extends OperationId>(operationId: K, init: CallInit<K>): Promise<Answer<K>> {
    const { method, path } = operationRoutes[operationId] as { method: string; path: string };
    const url = this.url(path, init.path as Record<string, string> | undefined, init.query);
    const headers: Record<string, string> = {
      accept: 'application/json, application/problem+json',
      ...this.options.headers,
      ...init.headers,
    };
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    let body: string | undefined;
    if (init.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(init.body);
    }
    const retryable = init.retry ?? SAFE_METHODS.has(method);
    for (let attempt = 0; ; attempt++) {
      const last = !retryable || attempt >= this.retries;
      let response: Response;
      try {
        response = await this.fetchImpl(url, { method, headers, body, signal: init.signal });
      } catch (cause) {
        if (init.signal?.aborted) throw cause;
        if (last) throw new ArborNetworkError(method, url, attempt + 1, cause);
        await sleep(this.backoff(attempt), init.signal);
        continue;
      }
      if (response.ok) return (await this.answer(response)) as Answer<K>;
      const problem = await this.problem(response);
      const again =
        RETRY_STATUS.has(response.status) ||
        (response.status === 409 && problem.code === 'concurrency_conflict');
      if (last || !again) throw new ArborProblemError(problem, method, url);
      await sleep(this.backoff(attempt, response.headers.get('retry-after')), init.signal);
    }
  }

  /** Every item of a paged list, page by page (follows `next` until the last page). */
  async *items<K extends PagedOperationId>(
    operationId: K,
    init: CallInit<K>,
  ): AsyncGenerator<PageItem<K>, void, undefined> {
    let cursor: string | undefined;
    do {
      const query = { ...(init.query ?? {}), ...(cursor ? { cursor } : {}) };
      const page = (await this.call(operationId, { ...init, query } as CallInit<K>)) as {
        items: PageItem<K>[];
        next?: string;
      };
      for (const item of page.items) yield item;
      cursor = page.next;
    } while (cursor);
  }

  /* ---- conversations ---- */

  startConversation(body: StartBody = {}) {
    // With an id the retry is safe (a lost 201 comes back as 409 conversation_exists).
    return this.call('startConversation', { body, retry: body.id !== undefined });
  }

  getConversation(id: string) {
    return this.call('getConversation', { path: { id } });
  }

  /** Every conversation of the tenant, oldest first. */
  conversations(limit?: number) {
    return this.items('listConversations', { query: { limit } });
  }

  /**
   * Commit one whole turn. A `turnId` is made when none is given and kept across retries, so a
   * commit whose answer was lost is answered 200 (replayed) instead of being stored twice.
   */
  commitTurn(id: string, turn: CommitBody | MessageInput[]) {
    const body = Array.isArray(turn) ? { messages: turn } : turn;
    return this.call('commitTurn', {
      path: { id },
      body: { ...body, turnId: body.turnId ?? this.newTurnId() },
      retry: true,
    });
  }

  moveTip(id: string, body: NonNullable<CallInit<'moveTip'>['body']>) {
    return this.call('moveTip', { path: { id }, body });
  }

  /** The active branch, root → tip, message by message. */
  messages(id: string, limit?: number) {
    return this.items('activeBranch', { path: { id }, query: { limit } });
  }

  getMessage(id: string, messageId: string) {
    return this.call('getMessage', { path: { id, messageId } });
  }

  tree(id: string) {
    return this.call('tree', { path: { id } });
  }

  events(id: string, query: CallInit<'events'>['query'] = {}) {
    return this.items('events', { path: { id }, query });
  }

  fork(id: string, body: CallInit<'fork'>['body'] = {}) {
    // Retry-safe by the route's contract (the same fork comes back).
    return this.call('fork', { path: { id }, body, retry: true });
  }

  /* ---- context ---- */

  /** The next provider request body fitted to the budget (records a receipt; safe to resend). */
  context(id: string, body: ContextBody) {
    return this.call('buildContext', { path: { id }, body, retry: true });
  }

  contexts(id: string, query: CallInit<'listContexts'>['query'] = {}) {
    return this.items('listContexts', { path: { id }, query });
  }

  /* ---- internals ---- */

  private url(path: string, params?: Record<string, string>, query?: object): string {
    const filled = path.replace(/\{(\w+)\}/g, (_, name: string) => {
      const value = params?.[name];
      if (value === undefined) throw new TypeError(`missing path parameter ${name}`);
      return encodeURIComponent(value);
    });
    const search = new URLSearchParams();
    for (const [k, v] of Object.entries(query ?? {})) {
      if (v !== undefined && v !== null) search.set(k, String(v));
    }
    const qs = search.toString();
    return `${this.baseUrl}${filled}${qs ? `?${qs}` : ''}`;
  }

  private backoff(attempt: number, retryAfter?: string | null): number {
    const seconds = retryAfter ? Number(retryAfter) : NaN;
    if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, 30_000);
    return this.retryDelayMs * 2 ** attempt;
  }

  private async answer(response: Response): Promise<unknown> {
    if (response.status === 204) return undefined;
    const type = response.headers.get('content-type') ?? '';
    return type.includes('json') && !type.includes('ndjson') ? response.json() : response.text();
  }

  private async problem(response: Response) {
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (isProblemBody(parsed)) return parsed;
    // Not problem+json (a proxy in between, say): keep the status and the text.
    return {
      type: 'about:blank',
      title: response.statusText || 'HTTP error',
      status: response.status,
      code: response.status >= 500 ? 'internal_error' : 'not_found',
      detail: text.slice(0, 500),
    } as const;
  }
}
