import { checkAnswer } from './contract-check';

/** One Server-Sent Events frame as a client parses it (the WHATWG event-stream rules we use). */
export interface SseFrame {
  id?: string;
  event?: string;
  data?: string;
  retry?: string;
  /** Comment lines (`: …`) seen in this frame. */
  comments: string[];
}

/** Parses `text/event-stream` frames out of a growing buffer; returns the frames and the rest. */
export const parseFrames = (buffer: string): { frames: SseFrame[]; rest: string } => {
  const frames: SseFrame[] = [];
  let rest = buffer.replace(/\r\n?/g, '\n');
  let end: number;
  while ((end = rest.indexOf('\n\n')) >= 0) {
    const block = rest.slice(0, end);
    rest = rest.slice(end + 2);
    const f: SseFrame = { comments: [] };
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) {
        f.comments.push(line.slice(1).trim());
        continue;
      }
      const i = line.indexOf(':');
      const field = i < 0 ? line : line.slice(0, i);
      const value = i < 0 ? '' : line.slice(i + 1).replace(/^ /, '');
      if (field === 'data') f.data = f.data === undefined ? value : `${f.data}\n${value}`;
      else if (field === 'id' || field === 'event' || field === 'retry') f[field] = value;
    }
    frames.push(f);
  }
  return { frames, rest };
};

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
  const ended = (async () => {
    let buffer = '';
    try {
      for (;;) {
        const { value, done: d } = await reader.read();
        if (d) break;
        const parsed = parseFrames(buffer + decoder.decode(value, { stream: true }));
        buffer = parsed.rest;
        queue.push(...parsed.frames);
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
