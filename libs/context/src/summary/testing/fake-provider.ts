/**
 * A local stand-in for the Anthropic Messages and OpenAI chat completions endpoints, on
 * 127.0.0.1 and a free port, speaking their wire formats: it checks the path, the auth headers
 * and the body shape, counts the request's tokens with the same local tokenizer (times an
 * `inflation` factor, to play a provider whose tokenizer counts more than our estimate) and
 * answers the provider's own "too long" error when the request does not fit its window, else a
 * realistic success body with usage. Scripted answers (rate limits, server errors, a hang) are
 * given first, in order. Every request is recorded.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { countTextTokens } from '../../tokens/text';
import type { SummaryProviderName } from '../wire';

export type ScriptedAnswer =
  { status: number; headers?: Record<string, string>; body: unknown } | 'hang';

export interface FakeProviderOptions {
  provider: SummaryProviderName;
  apiKey: string;
  contextWindowTokens: number;
  /** Provider tokens per local token (default 1). */
  inflation?: number;
  /** How "too long" is phrased: with the numbers (default) or without any. */
  tooLong?: 'numbers' | 'opaque';
  script?: ScriptedAnswer[];
  /** Summary for the n-th successful request (1-based); default: a marked filler text. */
  summarize?: (n: number, request: RecordedRequest) => string;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
  system: string;
  user: string;
  maxTokens: number;
  /** Input tokens by the local tokenizer, framing included, as this fake counts them. */
  tokens: number;
  /** Input tokens as the provider measures them (`tokens` × inflation). */
  measured: number;
  status?: number;
  reply?: string;
}

export interface FakeProvider {
  url: string;
  requests: RecordedRequest[];
  /** Answers still to give before the normal ones; push to script the next requests. */
  script: ScriptedAnswer[];
  close(): Promise<void>;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const PATHS: Record<SummaryProviderName, string> = {
  anthropic: '/v1/messages',
  'openai-chat': '/v1/chat/completions',
};

function anthropicError(type: string, message: string): Json {
  return { type: 'error', error: { type, message }, request_id: 'req_011CFakeProvider' };
}

function openAIError(
  message: string,
  type: string,
  code: string | null,
  param: string | null = null,
): Json {
  return { error: { message, type, param, code } };
}

/** Filler the size a real summary would be: about 60% of the answer's room, marked with its number. */
export function defaultSummary(n: number, request: RecordedRequest): string {
  const words = [`[summary ${n}]`, 'Goal: keep the standing instructions.'];
  const target = Math.floor(request.maxTokens * 0.6);
  let text = words.join(' ');
  for (let i = 0; countTextTokens(text) < target; i += 1) text += ` detail${n}x${i}`;
  return text;
}

interface Parsed {
  system: string;
  user: string;
  maxTokens: number;
  messageCount: number;
}

/** The body's text and cap, or the reason it is malformed for this provider. */
function parseBody(provider: SummaryProviderName, body: unknown): Parsed | string {
  if (!isObject(body)) return 'body must be a JSON object';
  if (typeof body.model !== 'string' || body.model === '') return 'model: Field required';
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0) return 'messages: Field required';
  const contents: { role: string; content: string }[] = [];
  for (const m of messages) {
    if (!isObject(m) || typeof m.role !== 'string' || typeof m.content !== 'string') {
      return 'messages: each message needs a role and string content';
    }
    contents.push({ role: m.role, content: m.content });
  }
  if (provider === 'anthropic') {
    if (!Number.isInteger(body.max_tokens)) return 'max_tokens: Field required';
    if (body.system !== undefined && typeof body.system !== 'string')
      return 'system: must be a string';
    if (contents.some((m) => m.role !== 'user' && m.role !== 'assistant')) {
      return 'messages: roles must be user or assistant';
    }
    return {
      system: typeof body.system === 'string' ? body.system : '',
      user: contents
        .filter((m) => m.role === 'user')
        .map((m) => m.content)
        .join('\n'),
      maxTokens: body.max_tokens as number,
      messageCount: contents.length,
    };
  }
  const cap = body.max_completion_tokens ?? body.max_tokens;
  if (!Number.isInteger(cap)) return 'max_completion_tokens: expected an integer';
  return {
    system: contents
      .filter((m) => m.role === 'system')
      .map((m) => m.content)
      .join('\n'),
    user: contents
      .filter((m) => m.role === 'user')
      .map((m) => m.content)
      .join('\n'),
    maxTokens: cap as number,
    messageCount: contents.length,
  };
}

function tooLongBody(
  options: FakeProviderOptions,
  measured: number,
  maxTokens: number,
): { status: number; body: Json } | undefined {
  const window = options.contextWindowTokens;
  if (measured + maxTokens <= window) return undefined;
  const opaque = options.tooLong === 'opaque';
  if (options.provider === 'anthropic') {
    if (opaque) {
      return {
        status: 413,
        body: anthropicError(
          'request_too_large',
          'Request exceeds the maximum allowed number of bytes.',
        ),
      };
    }
    const message =
      measured > window
        ? `prompt is too long: ${measured} tokens > ${window} maximum`
        : `input length and \`max_tokens\` exceed context limit: ${measured} + ${maxTokens} > ${window}, ` +
          'decrease input length or `max_tokens` and try again';
    return { status: 400, body: anthropicError('invalid_request_error', message) };
  }
  const message = opaque
    ? 'Your input exceeds the context window of this model. Please adjust your input and try again.'
    : measured > window
      ? `This model's maximum context length is ${window} tokens. However, your messages resulted in ${measured} tokens. Please reduce the length of the messages.`
      : `This model's maximum context length is ${window} tokens. However, you requested ${measured + maxTokens} tokens (${measured} in the messages, ${maxTokens} in the completion). Please reduce the length of the messages or completion.`;
  return {
    status: 400,
    body: openAIError(message, 'invalid_request_error', 'context_length_exceeded', 'messages'),
  };
}

function successBody(
  provider: SummaryProviderName,
  model: string,
  text: string,
  input: number,
): Json {
  const output = countTextTokens(text);
  if (provider === 'anthropic') {
    return {
      id: 'msg_01FakeProviderSummary',
      type: 'message',
      role: 'assistant',
      model,
      content: [{ type: 'text', text }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: {
        input_tokens: input,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        output_tokens: output,
      },
    };
  }
  return {
    id: 'chatcmpl-FakeProviderSummary',
    object: 'chat.completion',
    created: 1_763_681_630,
    model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: text, refusal: null, annotations: [] },
        logprobs: null,
        finish_reason: 'stop',
      },
    ],
    usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output },
    system_fingerprint: 'fp_fake',
  };
}

function authError(options: FakeProviderOptions, headers: IncomingHttpHeaders): Json | undefined {
  if (options.provider === 'anthropic') {
    if (headers['x-api-key'] !== options.apiKey) {
      return anthropicError('authentication_error', 'invalid x-api-key');
    }
    if (headers['anthropic-version'] !== '2023-06-01') {
      return anthropicError('invalid_request_error', 'anthropic-version: header is required');
    }
    return undefined;
  }
  return headers.authorization === `Bearer ${options.apiKey}`
    ? undefined
    : openAIError('Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key');
}

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    'content-type': 'application/json',
    'request-id': 'req_011CFakeProvider',
    'x-request-id': 'req_fake',
    ...headers,
  });
  res.end(JSON.stringify(body));
}

export async function startFakeProvider(options: FakeProviderOptions): Promise<FakeProvider> {
  const requests: RecordedRequest[] = [];
  const script = [...(options.script ?? [])];
  let successes = 0;
  const inflation = options.inflation ?? 1;

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch {
        body = undefined;
      }
      const parsed = parseBody(options.provider, body);
      const ok = typeof parsed !== 'string';
      const tokens = ok
        ? countTextTokens(parsed.system) +
          countTextTokens(parsed.user) +
          4 * (parsed.messageCount + (options.provider === 'anthropic' ? 1 : 0)) +
          3
        : 0;
      const record: RecordedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: isObject(body) ? body : {},
        system: ok ? parsed.system : '',
        user: ok ? parsed.user : '',
        maxTokens: ok ? parsed.maxTokens : 0,
        tokens,
        measured: Math.ceil(tokens * inflation),
      };
      requests.push(record);
      const answer = (status: number, payload: unknown, headers?: Record<string, string>): void => {
        record.status = status;
        send(res, status, payload, headers);
      };

      const scripted = script.shift();
      if (scripted === 'hang') return;
      if (scripted !== undefined) return answer(scripted.status, scripted.body, scripted.headers);

      const anthropic = options.provider === 'anthropic';
      if (req.method !== 'POST' || req.url !== PATHS[options.provider]) {
        return answer(
          404,
          anthropic
            ? anthropicError('not_found_error', 'Not Found')
            : openAIError(`Invalid URL (${req.method} ${req.url})`, 'invalid_request_error', null),
        );
      }
      const auth = authError(options, req.headers);
      if (auth)
        return answer(
          anthropic && record.headers['x-api-key'] === options.apiKey ? 400 : 401,
          auth,
        );
      if (!ok) {
        return answer(
          400,
          anthropic
            ? anthropicError('invalid_request_error', parsed)
            : openAIError(parsed, 'invalid_request_error', null),
        );
      }
      const tooLong = tooLongBody(options, record.measured, parsed.maxTokens);
      if (tooLong) return answer(tooLong.status, tooLong.body);
      successes += 1;
      const text = (options.summarize ?? defaultSummary)(successes, record);
      record.reply = text;
      const model = String((body as Json).model);
      return answer(200, successBody(options.provider, model, text, record.measured));
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    script,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
