import { createParser } from 'eventsource-parser';
import { checkAnswer } from './contract-check';

/**
 * What a raw test of the stream sees: each event, `retry:` field and comment line, parsed by
 * `eventsource-parser` (the client's parser), one item each, in the order they came.
 */
export interface SseFrame {
  id?: string;
  event?: string;
  data?: string;
  retry?: string;
  /** The comment line (`: …`), trimmed, when this item is one. */
  comments: string[];
}

/** A live stream opened with fetch (a real HTTP client), read frame by frame. */
export interface SseClient {
  status: number;
  headers: Headers;
  /** The problem+json text when the status is not 200. */
  errorText: string;
  /** Waits for the next frame matching `pick` (default: any data frame); rejects after `ms`. */
  next(pick?: (f: SseFrame) => boolean, ms?: number): Promise<SseFrame>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
}

export const openSse = async (
  baseUrl: string,
  path: string,
  key: string,
  headers: Record<string, string> = {},
): Promise<SseClient> => {
  const abort = new AbortController();
  const res = await fetch(baseUrl + path, {
    headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream', ...headers },
    signal: abort.signal,
  });
  if (res.status !== 200) {
    const text = await res.text();
    checkAnswer('GET', path, res.status, res.headers.get('content-type'), text);
    return {
      status: res.status,
      headers: res.headers,
      errorText: text,
      next: () => Promise.reject(new Error(`stream answered ${res.status}`)),
      ended: Promise.resolve(),
      close: () => undefined,
    };
  }
  checkAnswer('GET', path, res.status, res.headers.get('content-type'), '');
  const queue: SseFrame[] = [];
  let wake = null as (() => void) | null;
  let done = false;
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const parser = createParser({
    onEvent: (e) => queue.push({ id: e.id, event: e.event, data: e.data, comments: [] }),
    onRetry: (ms) => queue.push({ retry: String(ms), comments: [] }),
    onComment: (c) => queue.push({ comments: [c.trim()] }),
  });
  const ended = (async () => {
    try {
      for (;;) {
        const { value, done: d } = await reader.read();
        if (d) break;
        parser.feed(decoder.decode(value, { stream: true }));
        wake?.();
      }
    } catch {
      // aborted by close()
    } finally {
      done = true;
      wake?.();
    }
  })();
  const next = async (pick = (f: SseFrame) => f.data !== undefined, ms = 10_000) => {
    const deadline = Date.now() + ms;
    for (;;) {
      const i = queue.findIndex(pick);
      if (i >= 0) return queue.splice(i, 1)[0];
      if (done) throw new Error('the stream ended');
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no matching frame within ${ms} ms`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        wake = () => {
          clearTimeout(t);
          wake = null;
          resolve();
        };
      });
    }
  };
  return {
    status: res.status,
    headers: res.headers,
    errorText: '',
    next,
    ended,
    close: () => abort.abort(),
  };
};
