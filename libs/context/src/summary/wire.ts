/** The summary rung's two wire formats as pure functions (no I/O: see ./http.ts). */
import { parseOverflowError } from '../overflow';
import { SummaryProviderError, SummaryTooLongError } from './errors';

export type SummaryProviderName = 'anthropic' | 'openai-chat';

export const SUMMARY_PROVIDER_NAMES: readonly SummaryProviderName[] = ['anthropic', 'openai-chat'];

export interface SummaryCall {
  model: string;
  system: string;
  user: string;
  maxTokens: number;
}

export interface SummaryReply {
  text: string;
  /** The model the provider says answered (it may name a dated snapshot of the one asked for). */
  model: string;
  inputTokens: number;
  outputTokens: number;
  stopReason: string | null;
}

export interface WireFormat {
  url(baseUrl: string): string;
  headers(apiKey: string): Record<string, string>;
  body(call: SummaryCall): unknown;
  reply(status: number, body: unknown, askedModel: string): SummaryReply;
  error(status: number, bodyText: string): SummaryProviderError;
}

export const DEFAULT_SUMMARY_BASE_URLS: Record<SummaryProviderName, string> = {
  anthropic: 'https://api.anthropic.com',
  'openai-chat': 'https://api.openai.com',
};

export function endpoint(baseUrl: string, path: string): string {
  const base = baseUrl.replace(/\/+$/, '');
  return /\/v1$/.test(base) ? `${base}/${path}` : `${base}/v1/${path}`;
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const num = (value: unknown): number => (typeof value === 'number' ? value : 0);

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function errorObject(bodyText: string): Json {
  const body = parseJson(bodyText);
  return isObject(body) && isObject(body.error) ? body.error : {};
}

function fallbackType(status: number): string {
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'http_error';
}

function emptyReply(status: number, what: string): SummaryProviderError {
  return new SummaryProviderError(status, 'empty_response', `the provider answered ${what}`);
}

export const anthropicWire: WireFormat = {
  url: (baseUrl) => endpoint(baseUrl, 'messages'),
  headers: (apiKey) => ({
    'content-type': 'application/json',
    'x-api-key': apiKey,
    'anthropic-version': '2023-06-01',
  }),
  body: (call) => ({
    model: call.model,
    max_tokens: call.maxTokens,
    system: call.system,
    messages: [{ role: 'user', content: call.user }],
  }),
  reply(status, body, askedModel) {
    if (!isObject(body) || !Array.isArray(body.content)) throw emptyReply(status, 'no content');
    const text = body.content
      .filter((block): block is Json => isObject(block) && block.type === 'text')
      .map((block) => str(block.text) ?? '')
      .join('')
      .trim();
    if (text === '') throw emptyReply(status, 'no text');
    const usage = isObject(body.usage) ? body.usage : {};
    return {
      text,
      model: str(body.model) ?? askedModel,
      inputTokens:
        num(usage.input_tokens) +
        num(usage.cache_read_input_tokens) +
        num(usage.cache_creation_input_tokens),
      outputTokens: num(usage.output_tokens),
      stopReason: str(body.stop_reason) ?? null,
    };
  },
  error(status, bodyText) {
    const error = errorObject(bodyText);
    const type = str(error.type) ?? fallbackType(status);
    const message = str(error.message) ?? (bodyText.slice(0, 500) || `HTTP ${status}`);
    const overflow = parseOverflowError(message);
    if (overflow || status === 413 || /^prompt is too long\b/.test(message)) {
      return new SummaryTooLongError(status, type, message, overflow);
    }
    return new SummaryProviderError(status, type, message);
  },
};

/** `max_completion_tokens` unless `max_tokens` is asked: o-series models refuse `max_tokens`. */
export function openAIChatWire(
  maxTokensField: 'max_completion_tokens' | 'max_tokens' = 'max_completion_tokens',
): WireFormat {
  return {
    url: (baseUrl) => endpoint(baseUrl, 'chat/completions'),
    headers: (apiKey) => ({
      'content-type': 'application/json',
      authorization: `Bearer ${apiKey}`,
    }),
    body: (call) => ({
      model: call.model,
      messages: [
        { role: 'system', content: call.system },
        { role: 'user', content: call.user },
      ],
      [maxTokensField]: call.maxTokens,
    }),
    reply(status, body, askedModel) {
      const choice =
        isObject(body) && Array.isArray(body.choices) && isObject(body.choices[0])
          ? body.choices[0]
          : undefined;
      const message = choice && isObject(choice.message) ? choice.message : undefined;
      const text = (str(message?.content) ?? '').trim();
      if (text === '') throw emptyReply(status, str(message?.refusal) ?? 'no message content');
      const usage = isObject(body) && isObject(body.usage) ? body.usage : {};
      return {
        text,
        model: (isObject(body) && str(body.model)) || askedModel,
        inputTokens: num(usage.prompt_tokens),
        outputTokens: num(usage.completion_tokens),
        stopReason: str(choice?.finish_reason) ?? null,
      };
    },
    error(status, bodyText) {
      const error = errorObject(bodyText);
      const type = str(error.type) ?? fallbackType(status);
      const message = str(error.message) ?? (bodyText.slice(0, 500) || `HTTP ${status}`);
      const overflow = parseOverflowError(message);
      if (overflow || error.code === 'context_length_exceeded' || status === 413) {
        return new SummaryTooLongError(status, type, message, overflow);
      }
      return new SummaryProviderError(status, type, message);
    },
  };
}

export function wireFormat(
  provider: SummaryProviderName,
  maxTokensField?: 'max_completion_tokens' | 'max_tokens',
): WireFormat {
  return provider === 'anthropic' ? anthropicWire : openAIChatWire(maxTokensField);
}
