/** One POST with a timeout; a 429 or 5xx is retried once, after the wait the provider asked for. */
import { SummaryProviderError } from './errors';

export interface PostOptions {
  url: string;
  headers: Record<string, string>;
  body: unknown;
  timeoutMs: number;
  /** Longest wait honoured before the retry; a provider asking for more fails now. */
  maxRetryWaitMs: number;
  backoffMs: number;
  sleep: (ms: number) => Promise<void>;
  toError: (status: number, bodyText: string) => SummaryProviderError;
  now?: () => number;
}

export interface PostResult {
  status: number;
  body: unknown;
}

export const realSleep = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms));

const isRetryable = (status: number): boolean => status === 429 || status >= 500;

export function retryAfterMs(headers: Headers, now: number = Date.now()): number | undefined {
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '' && Number.isFinite(Number(ms)) && Number(ms) >= 0) {
    return Number(ms);
  }
  const value = headers.get('retry-after')?.trim();
  if (value === undefined || value === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

interface ErrorLike {
  message?: unknown;
  code?: unknown;
  cause?: unknown;
  errors?: unknown;
}

const errorLike = (value: unknown): ErrorLike | undefined =>
  typeof value === 'object' && value !== null ? (value as ErrorLike) : undefined;

/** Read by shape, not `instanceof`: fetch's errors may come from another realm (a test sandbox). */
export function failureDetail(error: unknown, depth = 0): string {
  const e = errorLike(error);
  if (e === undefined) return String(error);
  const cause = errorLike(e.cause);
  if (cause !== undefined && depth < 3) return failureDetail(cause, depth + 1);
  const message = typeof e.message === 'string' ? e.message.trim() : '';
  if (message !== '') return message;
  if (typeof e.code === 'string' && e.code !== '') return e.code;
  const first = Array.isArray(e.errors) ? errorLike(e.errors[0]) : undefined;
  if (first !== undefined && depth < 3) return failureDetail(first, depth + 1);
  return String(error);
}

interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

async function postOnce(options: PostOptions): Promise<Answer> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs);
  try {
    const response = await fetch(options.url, {
      method: 'POST',
      headers: options.headers,
      body: JSON.stringify(options.body),
      signal: controller.signal,
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, text };
  } catch (error) {
    if (controller.signal.aborted) {
      throw new SummaryProviderError(0, 'timeout', `no answer within ${options.timeoutMs} ms`);
    }
    throw new SummaryProviderError(0, 'network_error', `request failed: ${failureDetail(error)}`);
  } finally {
    clearTimeout(timer);
  }
}

function parseBody(answer: Answer): unknown {
  try {
    return JSON.parse(answer.text);
  } catch {
    throw new SummaryProviderError(answer.status, 'invalid_response', 'the answer is not JSON');
  }
}

export async function postJson(options: PostOptions): Promise<PostResult> {
  const first = await postOnce(options);
  if (first.status >= 200 && first.status < 300) {
    return { status: first.status, body: parseBody(first) };
  }
  if (!isRetryable(first.status)) throw options.toError(first.status, first.text);
  const asked = retryAfterMs(first.headers, (options.now ?? Date.now)());
  if (asked !== undefined && asked > options.maxRetryWaitMs) {
    throw options.toError(first.status, first.text);
  }
  await options.sleep(asked ?? options.backoffMs);
  const second = await postOnce(options);
  if (second.status >= 200 && second.status < 300) {
    return { status: second.status, body: parseBody(second) };
  }
  throw options.toError(second.status, second.text);
}
