/**
 * The tests' raw HTTP tool: one request as given (any method, body, raw bytes, headers), its
 * status, headers and text, the answer checked against the contract's OpenAPI document. Tests
 * that look at statuses, headers or malformed bodies use it; everything else goes through
 * `@arbor/client`, which can run over it (`transportOf`) so its calls are checked the same way.
 */
import { checkAnswer } from './contract-check';

export interface HttpResult {
  status: number;
  headers: Headers;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- test helper: JSON of any shape
  text: string;
}

export interface CallOptions {
  /** A tenant API key or the admin key, sent as `Authorization: Bearer`. */
  key?: string;
  /** JSON-encoded as the body. */
  body?: unknown;
  /** Sent as the body byte for byte (malformed JSON, say). */
  raw?: string | Uint8Array;
  headers?: Record<string, string>;
  timeoutMs?: number;
  /** Check the answer against the OpenAPI document (default true). */
  check?: boolean;
}

export type Call = (method: string, url: string, options?: CallOptions) => Promise<HttpResult>;

export const httpCall = async (
  baseUrl: string,
  method: string,
  url: string,
  options: CallOptions = {},
): Promise<HttpResult> => {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  const payload =
    options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  if (payload !== undefined && !headers['content-type'])
    headers['content-type'] = 'application/json';
  const res = await fetch(baseUrl + url, {
    method,
    headers,
    body: payload,
    signal: AbortSignal.timeout(options.timeoutMs ?? 60_000),
  });
  const text = await res.text();
  if (options.check !== false)
    checkAnswer(method, url, res.status, res.headers.get('content-type'), text);
  let body: unknown = undefined;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, body, text };
};

/** A GET's answer and its bytes as they came, for tests of the framing (chunked, streamed). */
export const httpBytes = async (
  baseUrl: string,
  url: string,
  key: string,
): Promise<{ res: Response; bytes: Buffer }> => {
  const res = await fetch(baseUrl + url, { headers: { authorization: `Bearer ${key}` } });
  return { res, bytes: Buffer.from(await res.arrayBuffer()) };
};

/** A `fetch` for `@arbor/client` (with `baseUrl: ''`) that sends each request through `call`. */
export const transportOf =
  (call: Call): typeof fetch =>
  async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const r = await call(init?.method ?? 'GET', url, {
      headers: init?.headers as Record<string, string> | undefined,
      ...(typeof init?.body === 'string' ? { raw: init.body } : {}),
    });
    const empty = r.status === 204 || r.status === 205 || r.status === 304;
    return new Response(empty ? null : r.text, { status: r.status, headers: r.headers });
  };
