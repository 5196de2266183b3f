/**
 * A small fetch wrapper typed by the generated OpenAPI types: `call(operationId, init)` reaches
 * every route; the named methods add what integrators need on top (a fresh `turnId` per turn,
 * page iterators). Hand-written rather than openapi-fetch so the retry rule (which requests may
 * be sent again) and the problem type by `code` live in one place; its one runtime dependency is
 * `eventsource-parser`, for the live stream.
 */
import { createParser } from 'eventsource-parser';
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
  /**
   * How long one call may wait in all on `429 rate_limited` answers (their `Retry-After`) before
   * it rejects with the 429 (default 30 000 ms; 0: never wait). Only calls safe to send again
   * wait; these waits do not count against `retries`.
   */
  maxRateLimitWaitMs?: number;
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

/** One event of a conversation's live stream, as the server projected it. */
export interface StreamEvent {
  revision: number;
  type: string;
  data: Record<string, unknown>;
  metadata: Record<string, unknown>;
}

interface SseFrame {
  id?: string;
  data?: string;
  retry?: number;
}

/** Longest event the stream reader buffers (the server caps an event far below this). */
const MAX_SSE_EVENT_CHARS = 16 * 1024 * 1024;

/**
 * The frames of a `text/event-stream` body, parsed by `eventsource-parser` (the WHATWG rules:
 * line endings, comments, multi-line data, `retry:`), with a bound on what it buffers.
 */
async function* sseFrames(body: ReadableStream<Uint8Array>): AsyncGenerator<SseFrame> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const frames: SseFrame[] = [];
  let failure: Error | undefined;
  const parser = createParser({
    onEvent: (e) => frames.push({ id: e.id, data: e.data }),
    onRetry: (retry) => frames.push({ retry }),
    onError: (e) => {
      if (e.type === 'max-buffer-size-exceeded') failure = e;
    },
    maxBufferSize: MAX_SSE_EVENT_CHARS,
  });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      parser.feed(decoder.decode(value, { stream: true }));
      if (failure) throw failure;
      yield* frames.splice(0);
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

type StartBody = NonNullable<CallInit<'startConversation'>['body']>;
type CommitBody = Omit<Schemas['CommitTurnBody'], 'turnId'> & { turnId?: string };
type ContextBody = CallInit<'buildContext'>['body'];

export class ArborClient {
  private readonly fetchImpl: typeof fetch;
  private readonly baseUrl: string;
  private readonly retries: number;
  private readonly retryDelayMs: number;
  private readonly maxRateLimitWaitMs: number;
  private readonly newTurnId: () => string;

  constructor(private readonly options: ArborClientOptions) {
    this.fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.retries = options.retries ?? 3;
    this.retryDelayMs = options.retryDelayMs ?? 100;
    this.maxRateLimitWaitMs = options.maxRateLimitWaitMs ?? 30_000;
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
    // A request carrying an Idempotency-Key is answered once however often it is sent.
    const keyed = Object.keys(headers).some((h) => h.toLowerCase() === 'idempotency-key');
    const retryable = init.retry ?? (SAFE_METHODS.has(method) || keyed);
    let waited = 0;
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
      if (response.status === 429 && problem.code === 'rate_limited' && retryable) {
        const wait = this.backoff(0, response.headers.get('retry-after'), Infinity);
        if (waited + wait > this.maxRateLimitWaitMs)
          throw new ArborProblemError(problem, method, url);
        waited += wait;
        attempt--; // the server asked to wait, not failed: no retry is used up
        await sleep(wait, init.signal);
        continue;
      }
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

  /**
   * The conversation as of `revision` (`GET …/replay`), its active branch with every page
   * (`branch.next` followed until the last).
   */
  async replay(id: string, revision: number | string, limit = 1000) {
    const query = { revision: String(revision), limit };
    const first = await this.call('replay', { path: { id }, query });
    const items = [...first.branch.items];
    for (let cursor = first.branch.next; cursor !== undefined;) {
      const page = await this.call('replay', { path: { id }, query: { ...query, cursor } });
      items.push(...page.branch.items);
      cursor = page.branch.next;
    }
    const { next: _next, ...branch } = first.branch;
    return { ...first, branch: { ...branch, items } };
  }

  /* ---- context ---- */

  /** The next provider request body fitted to the budget (records a receipt; safe to resend). */
  context(id: string, body: ContextBody) {
    return this.call('buildContext', { path: { id }, body, retry: true });
  }

  contexts(id: string, query: CallInit<'listContexts'>['query'] = {}) {
    return this.items('listContexts', { path: { id }, query });
  }

  /* ---- live ---- */

  /**
   * The conversation's events as they are projected (`GET …/stream`, Server-Sent Events): those
   * after `fromRevision` first (read back from the log), then live ones; without `fromRevision`,
   * only events projected from now on (SSE semantics: no `Last-Event-ID`). A dropped connection is opened again after the
   * server's `retry:` delay with `Last-Event-ID` set to the last revision received, so no event
   * is skipped or repeated; a refusal (4xx other than 429) ends the iteration with an
   * `ArborProblemError`. Ends when `signal` aborts or the caller breaks out of the loop.
   * `onState` hears each connection open and each wait before opening it again.
   */
  async *stream(
    id: string,
    options: {
      fromRevision?: number;
      signal?: AbortSignal;
      onState?: (state: 'open' | 'reconnecting') => void;
    } = {},
  ): AsyncGenerator<StreamEvent, void, undefined> {
    const { method, path } = operationRoutes.stream as { method: string; path: string };
    const url = this.url(path, { id });
    const inner = new AbortController();
    const outer = options.signal;
    const onAbort = () => inner.abort(outer?.reason);
    if (outer?.aborted) return;
    outer?.addEventListener('abort', onAbort, { once: true });
    let last = options.fromRevision ?? null;
    let retryMs = 2000;
    let failures = 0;
    try {
      while (!inner.signal.aborted) {
        const headers: Record<string, string> = {
          accept: 'text/event-stream',
          ...this.options.headers,
        };
        if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
        if (last !== null) headers['last-event-id'] = String(last);
        let response: Response;
        try {
          response = await this.fetchImpl(url, { method, headers, signal: inner.signal });
        } catch (cause) {
          if (inner.signal.aborted) return;
          if (++failures > this.retries) throw new ArborNetworkError(method, url, failures, cause);
          options.onState?.('reconnecting');
          await sleep(this.backoff(failures - 1), inner.signal).catch(() => undefined);
          continue;
        }
        if (!response.ok || response.body === null) {
          const problem = await this.problem(response);
          const again = RETRY_STATUS.has(response.status) || response.status === 429;
          if (!again || ++failures > this.retries)
            throw new ArborProblemError(problem, method, url);
          options.onState?.('reconnecting');
          await sleep(
            this.backoff(failures - 1, response.headers.get('retry-after')),
            inner.signal,
          );
          continue;
        }
        failures = 0;
        options.onState?.('open');
        try {
          for await (const frame of sseFrames(response.body)) {
            if (frame.retry !== undefined) retryMs = frame.retry;
            if (frame.data === undefined) continue;
            const event = JSON.parse(frame.data) as StreamEvent;
            if (last !== null && event.revision <= last) continue;
            last = event.revision;
            yield event;
          }
        } catch {
          // The connection broke mid-stream: open it again from the last revision.
          if (inner.signal.aborted) return;
        }
        if (inner.signal.aborted) return;
        options.onState?.('reconnecting');
        await sleep(retryMs, inner.signal).catch(() => undefined);
      }
    } finally {
      outer?.removeEventListener('abort', onAbort);
      inner.abort();
    }
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

  private backoff(attempt: number, retryAfter?: string | null, cap = 30_000): number {
    const seconds = retryAfter ? Number(retryAfter) : NaN;
    if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, cap);
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
