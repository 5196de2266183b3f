import path from 'node:path';
import { REAL_PI } from '@arbor/fixtures';
import type { Message } from '@arbor/domain/messages';
import type { Summarize } from '../ladder/types';
import { chain, text, type MessageSpec } from '../testing/conversation';
import { SummaryProviderError, SummaryTooLongError, SummaryUnavailableError } from './errors';
import { MAX_SHRINKS, createSummarizer, type SummarizerConfig } from './summarizer';
import {
  startFakeProvider,
  type FakeProvider,
  type FakeProviderOptions,
} from './testing/fake-provider';
import { readPiSession } from './testing/pi-session';
import type { SummaryProviderName } from './wire';

const KEY = 'test-key-123';
const LARGE_SESSION = path.join(REAL_PI, 'large-session.jsonl');

const servers: FakeProvider[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function fake(
  options: Omit<FakeProviderOptions, 'apiKey'> & { apiKey?: string },
): Promise<FakeProvider> {
  const server = await startFakeProvider({ apiKey: KEY, ...options });
  servers.push(server);
  return server;
}

function summarizerFor(
  server: FakeProvider,
  provider: SummaryProviderName,
  overrides: Partial<SummarizerConfig> = {},
): { sleeps: number[]; summarize: ReturnType<typeof createSummarizer>['summarize'] } {
  const sleeps: number[] = [];
  const summarizer = createSummarizer({
    provider,
    baseUrl: server.url,
    apiKey: KEY,
    model: provider === 'anthropic' ? 'claude-haiku-4-5' : 'gpt-4o-mini',
    contextWindowTokens: 8000,
    maxSummaryTokens: 1000,
    timeoutMs: 10_000,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    ...overrides,
  });
  return { sleeps, summarize: summarizer.summarize };
}

const smallConversation = (): Message[] =>
  chain([
    {
      role: 'user',
      content: [text('Goal: make the parser accept trailing commas. Never edit generated files.')],
    },
    {
      role: 'assistant',
      content: [
        text('Looking.'),
        { type: 'tool_use', id: 'call_1', name: 'read', input: { path: 'src/parser.ts' } },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'call_1', content: 'export function parse() {}' },
      ],
    },
    { role: 'assistant', content: [text('Patched parse() to skip a trailing comma.')] },
  ]);

/** A conversation of `turns` tool round trips, each output about `outputChars` characters. */
function longConversation(turns: number, outputChars = 3000): Message[] {
  const specs: MessageSpec[] = [{ role: 'user', content: [text('Goal: audit every module.')] }];
  for (let i = 0; i < turns; i += 1) {
    specs.push(
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: `call_${i}`, name: 'read', input: { path: `src/m${i}.ts` } },
        ],
      },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: `call_${i}`,
            content: Array.from(
              { length: Math.ceil(outputChars / 40) },
              (_, j) => `export const v${i}_${j} = ${j};`,
            )
              .join('\n')
              .slice(0, outputChars),
          },
        ],
      },
    );
  }
  return chain(specs);
}

describe.each<SummaryProviderName>(['anthropic', 'openai-chat'])(
  'summarizer over %s',
  (provider) => {
    const anthropic = provider === 'anthropic';

    it('sends a small input in one window, in the provider wire format', async () => {
      const server = await fake({
        provider,
        contextWindowTokens: 8000,
        summarize: () => 'Goal: trailing commas.',
      });
      const { summarize } = summarizerFor(server, provider);
      const result = await summarize({
        messages: smallConversation(),
        instructions: 'Focus on the parser.',
      });

      expect(result).toEqual({
        summary: 'Goal: trailing commas.',
        model: anthropic ? 'claude-haiku-4-5' : 'gpt-4o-mini',
        windows: 1,
        usage: { inputTokens: server.requests[0].measured, outputTokens: expect.any(Number) },
        truncated: false,
      });
      expect(server.requests).toHaveLength(1);
      const [request] = server.requests;
      expect(request.status).toBe(200);
      expect(request.method).toBe('POST');
      if (anthropic) {
        expect(request.path).toBe('/v1/messages');
        expect(request.headers['x-api-key']).toBe(KEY);
        expect(request.headers['anthropic-version']).toBe('2023-06-01');
        expect(Object.keys(request.body).sort()).toEqual([
          'max_tokens',
          'messages',
          'model',
          'system',
        ]);
        expect(request.body.max_tokens).toBe(1000);
        expect(request.body.messages).toEqual([{ role: 'user', content: expect.any(String) }]);
      } else {
        expect(request.path).toBe('/v1/chat/completions');
        expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
        expect(Object.keys(request.body).sort()).toEqual([
          'max_completion_tokens',
          'messages',
          'model',
        ]);
        expect(request.body.max_completion_tokens).toBe(1000);
        expect(request.body.messages).toEqual([
          { role: 'system', content: expect.any(String) },
          { role: 'user', content: expect.any(String) },
        ]);
      }
      expect(request.headers['content-type']).toBe('application/json');
      expect(request.system).toMatch(/Standing instructions and constraints/);
      expect(request.system).toMatch(/Goal/);
      expect(request.user).toContain(
        '[user]\nGoal: make the parser accept trailing commas. Never edit generated files.',
      );
      expect(request.user).toContain('[tool call read id=call_1]\n{"path":"src/parser.ts"}');
      expect(request.user).toContain('[tool result read id=call_1]\nexport function parse() {}');
      expect(request.user).toContain('Focus on the parser.');
      expect(request.user).toContain('This is the end of the transcript.');
      expect(request.user).not.toContain('<summary_so_far>');
    });

    it('folds a real large session through windows, each carrying the previous summary, none over the window', async () => {
      const messages = readPiSession(LARGE_SESSION);
      const window = 16_000;
      const server = await fake({ provider, contextWindowTokens: window });
      const { summarize } = summarizerFor(server, provider, {
        contextWindowTokens: window,
        maxSummaryTokens: 1500,
      });
      const result = await summarize({ messages });

      const requests = server.requests;
      expect(requests.length).toBeGreaterThanOrEqual(5);
      expect(requests.every((r) => r.status === 200)).toBe(true);
      expect(result.windows).toBe(requests.length);
      for (const r of requests) expect(r.tokens + r.maxTokens).toBeLessThanOrEqual(window);
      // Each window carries the summary of the one before it, and only that one.
      expect(requests[0].user).not.toContain('<summary_so_far>');
      for (let k = 1; k < requests.length; k += 1) {
        expect(requests[k].user).toContain(
          `<summary_so_far>\n${requests[k - 1].reply}\n</summary_so_far>`,
        );
        if (k >= 2) expect(requests[k].user).not.toContain(requests[k - 2].reply);
        expect(requests[k].user).toContain(`Transcript part ${k + 1}`);
      }
      expect(result.summary).toBe(requests[requests.length - 1].reply);
      expect(requests[requests.length - 1].user).toContain('This is the end of the transcript.');
      expect(
        requests.slice(0, -1).every((r) => r.user.includes('More of the transcript follows.')),
      ).toBe(true);
      // Nothing skipped, nothing out of order: every tool call appears, in the session's order.
      const sent = requests.map((r) => r.user).join('\n');
      const callIds = messages.flatMap((m) =>
        m.content.flatMap((b) => (b.type === 'tool_use' ? [b.id] : [])),
      );
      expect(callIds.length).toBeGreaterThan(300);
      let from = 0;
      for (const id of callIds) {
        const at = sent.indexOf(`id=${id}]`, from);
        expect(at).toBeGreaterThanOrEqual(from);
        from = at;
      }
      expect(result.usage.inputTokens).toBe(requests.reduce((sum, r) => sum + r.measured, 0));
    });

    // 1.3: the input alone is over the window ("prompt is too long" / "your messages resulted in");
    // 1.1: only input + max_tokens is ("input length and `max_tokens` exceed" / "you requested").
    it.each([1.3, 1.1])(
      'shrinks a window the provider measured too long (×%s), learns its count and succeeds',
      async (inflation) => {
        const window = 8000;
        const server = await fake({ provider, contextWindowTokens: window, inflation });
        const { summarize } = summarizerFor(server, provider, { contextWindowTokens: window });
        const result = await summarize({ messages: longConversation(40) });

        const tooLong = server.requests.filter((r) => r.status !== 200);
        const accepted = server.requests.filter((r) => r.status === 200);
        expect(tooLong).toHaveLength(1);
        expect(tooLong[0].status).toBe(400);
        // Which phrasing the provider used: over the window, or over it only with max_tokens.
        const overAlone = tooLong[0].measured > window;
        expect(overAlone).toBe(inflation > 1.2);
        expect(tooLong[0].measured + tooLong[0].maxTokens).toBeGreaterThan(window);
        expect(server.requests[0].status).toBe(400);
        expect(server.requests[1].status).toBe(200);
        expect(server.requests[1].tokens).toBeLessThan(server.requests[0].tokens);
        expect(accepted.length).toBeGreaterThanOrEqual(3);
        for (const r of accepted) expect(r.measured + r.maxTokens).toBeLessThanOrEqual(window);
        expect(result.windows).toBe(accepted.length);
        expect(result.summary).toBe(accepted[accepted.length - 1].reply);
      },
    );

    it('halves the window when the "too long" answer has no numbers', async () => {
      const window = 8000;
      const server = await fake({
        provider,
        contextWindowTokens: window,
        inflation: 1.3,
        tooLong: 'opaque',
      });
      const { summarize } = summarizerFor(server, provider, { contextWindowTokens: window });
      const result = await summarize({ messages: longConversation(12) });

      const [first, second] = server.requests;
      expect(first.status).toBe(anthropic ? 413 : 400);
      expect(second.status).toBe(200);
      const transcript = (user: string): string =>
        user.slice(user.indexOf('<transcript>'), user.indexOf('</transcript>'));
      expect(transcript(second.user).length).toBeLessThan(transcript(first.user).length * 0.6);
      // What was learned holds for the later windows: one rejection in all.
      expect(server.requests.filter((r) => r.status !== 200)).toHaveLength(1);
      expect(result.windows).toBe(server.requests.length - 1);
      expect(result.windows).toBeGreaterThanOrEqual(2);
    });

    it('gives up with SummaryTooLongError after a bounded number of shrinks', async () => {
      // Every answer says "too long", without numbers: more rejections than the summarizer may absorb.
      const rejection = anthropic
        ? {
            status: 413,
            body: {
              type: 'error',
              error: {
                type: 'request_too_large',
                message: 'Request exceeds the maximum allowed number of bytes.',
              },
            },
          }
        : {
            status: 400,
            body: {
              error: {
                message: 'Your input exceeds the context window of this model.',
                type: 'invalid_request_error',
                param: 'messages',
                code: 'context_length_exceeded',
              },
            },
          };
      // A window large enough that halving never runs out of room: the bound is MAX_SHRINKS.
      const window = 64_000;
      const script = Array(10).fill(rejection);
      const server = await fake({ provider, contextWindowTokens: window, script });
      const { summarize } = summarizerFor(server, provider, { contextWindowTokens: window });
      const failure = summarize({ messages: longConversation(80) });
      await expect(failure).rejects.toBeInstanceOf(SummaryTooLongError);
      await expect(failure).rejects.toMatchObject({ status: anthropic ? 413 : 400 });
      expect(server.requests).toHaveLength(MAX_SHRINKS + 1);
    });

    it('retries a 429 once, after the wait the provider asked for', async () => {
      const body = anthropic
        ? {
            type: 'error',
            error: {
              type: 'rate_limit_error',
              message: 'Number of request tokens has exceeded your per-minute rate limit',
            },
          }
        : {
            error: {
              message: 'Rate limit reached for gpt-4o-mini',
              type: 'requests',
              param: null,
              code: 'rate_limit_exceeded',
            },
          };
      const headers: Record<string, string> = anthropic
        ? { 'retry-after': '2' }
        : { 'retry-after-ms': '350' };
      const server = await fake({
        provider,
        contextWindowTokens: 8000,
        script: [{ status: 429, headers, body }],
      });
      const { summarize, sleeps } = summarizerFor(server, provider);
      const result = await summarize({ messages: smallConversation() });

      expect(result.windows).toBe(1);
      expect(server.requests.map((r) => r.status)).toEqual([429, 200]);
      expect(sleeps).toEqual([anthropic ? 2000 : 350]);
      expect(server.requests[1].body).toEqual(server.requests[0].body);
    });

    it('does not wait longer than allowed: a far retry-after fails at once', async () => {
      const server = await fake({
        provider,
        contextWindowTokens: 8000,
        script: [{ status: 429, headers: { 'retry-after': '3600' }, body: {} }],
      });
      const { summarize, sleeps } = summarizerFor(server, provider, { maxRetryWaitMs: 30_000 });
      await expect(summarize({ messages: smallConversation() })).rejects.toMatchObject({
        status: 429,
      });
      expect(server.requests).toHaveLength(1);
      expect(sleeps).toEqual([]);
    });

    it('fails with SummaryProviderError after a 500 and a second 500', async () => {
      const body = anthropic
        ? { type: 'error', error: { type: 'api_error', message: 'Internal server error' } }
        : {
            error: {
              message: 'The server had an error while processing your request. Sorry about that!',
              type: 'server_error',
              param: null,
              code: null,
            },
          };
      const server = await fake({
        provider,
        contextWindowTokens: 8000,
        script: [
          { status: 500, body },
          { status: 500, body },
        ],
      });
      const { summarize, sleeps } = summarizerFor(server, provider, { backoffMs: 1234 });
      const failure = summarize({ messages: smallConversation() });
      await expect(failure).rejects.toBeInstanceOf(SummaryProviderError);
      await expect(failure).rejects.not.toBeInstanceOf(SummaryTooLongError);
      await expect(failure).rejects.toMatchObject({
        status: 500,
        type: anthropic ? 'api_error' : 'server_error',
      });
      expect(server.requests).toHaveLength(2);
      expect(sleeps).toEqual([1234]);
    });

    it('times out a provider that does not answer, without retrying', async () => {
      const server = await fake({ provider, contextWindowTokens: 8000, script: ['hang'] });
      const { summarize } = summarizerFor(server, provider, { timeoutMs: 200 });
      await expect(summarize({ messages: smallConversation() })).rejects.toMatchObject({
        name: 'SummaryProviderError',
        status: 0,
        type: 'timeout',
      });
      expect(server.requests).toHaveLength(1);
    });

    it('does not retry a rejected key', async () => {
      const server = await fake({ provider, contextWindowTokens: 8000, apiKey: 'the-real-key' });
      const { summarize, sleeps } = summarizerFor(server, provider);
      await expect(summarize({ messages: smallConversation() })).rejects.toMatchObject({
        status: 401,
        type: anthropic ? 'authentication_error' : 'invalid_request_error',
      });
      expect(server.requests).toHaveLength(1);
      expect(sleeps).toEqual([]);
    });

    it('is unavailable without a key or a model, and sends nothing', async () => {
      const server = await fake({ provider, contextWindowTokens: 8000 });
      for (const missing of [{ apiKey: undefined }, { apiKey: '  ' }, { model: undefined }]) {
        const summarizer = createSummarizer({
          provider,
          baseUrl: server.url,
          apiKey: KEY,
          model: 'm',
          contextWindowTokens: 8000,
          maxSummaryTokens: 1000,
          ...missing,
        });
        expect(summarizer.available).toBe(false);
        expect(summarizer.unavailableReason).toMatch(/no (API key|model) configured/);
        await expect(
          summarizer.summarize({ messages: smallConversation() }),
        ).rejects.toBeInstanceOf(SummaryUnavailableError);
      }
      expect(server.requests).toHaveLength(0);
    });
  },
);

describe('createSummarizer', () => {
  const base = { provider: 'anthropic' as const, apiKey: 'k', model: 'm' };

  it("plugs into the ladder's summary rung as is (a compile-time check)", () => {
    const summarize: Summarize = createSummarizer({
      ...base,
      contextWindowTokens: 8000,
      maxSummaryTokens: 1000,
    }).summarize;
    expect(typeof summarize).toBe('function');
  });

  it('refuses a window too small to fold with the summaries it must carry', () => {
    expect(() =>
      createSummarizer({ ...base, contextWindowTokens: 3000, maxSummaryTokens: 1000 }),
    ).toThrow(RangeError);
    expect(() =>
      createSummarizer({ ...base, contextWindowTokens: 0, maxSummaryTokens: 10 }),
    ).toThrow(RangeError);
    expect(
      createSummarizer({ ...base, contextWindowTokens: 8000, maxSummaryTokens: 1000 }).available,
    ).toBe(true);
  });

  it('answers an empty history without a call', async () => {
    const summarizer = createSummarizer({
      ...base,
      baseUrl: 'http://127.0.0.1:9',
      contextWindowTokens: 8000,
      maxSummaryTokens: 1000,
    });
    await expect(summarizer.summarize({ messages: [] })).resolves.toMatchObject({
      summary: '',
      windows: 0,
    });
  });
});
