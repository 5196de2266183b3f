import { SummaryProviderError, SummaryTooLongError } from './errors';
import { anthropicWire, endpoint, openAIChatWire } from './wire';

const call = { model: 'm', system: 'sys', user: 'hello', maxTokens: 100 };

describe('endpoint', () => {
  it('adds /v1 once, whether or not the base already ends with it', () => {
    expect(endpoint('https://api.anthropic.com', 'messages')).toBe(
      'https://api.anthropic.com/v1/messages',
    );
    expect(endpoint('https://api.anthropic.com/', 'messages')).toBe(
      'https://api.anthropic.com/v1/messages',
    );
    expect(endpoint('http://localhost:8000/v1', 'chat/completions')).toBe(
      'http://localhost:8000/v1/chat/completions',
    );
    expect(endpoint('https://gw.example/openai/v1/', 'chat/completions')).toBe(
      'https://gw.example/openai/v1/chat/completions',
    );
  });
});

describe('anthropic wire', () => {
  it('builds the Messages request', () => {
    expect(anthropicWire.headers('k')).toEqual({
      'content-type': 'application/json',
      'x-api-key': 'k',
      'anthropic-version': '2023-06-01',
    });
    expect(anthropicWire.body(call)).toEqual({
      model: 'm',
      max_tokens: 100,
      system: 'sys',
      messages: [{ role: 'user', content: 'hello' }],
    });
  });

  it('joins the text blocks of a reply and adds cached input to the input tokens', () => {
    const reply = anthropicWire.reply(
      200,
      {
        model: 'claude-x-2025',
        content: [
          { type: 'text', text: 'Goal: A. ' },
          { type: 'text', text: 'State: B.' },
        ],
        stop_reason: 'max_tokens',
        usage: {
          input_tokens: 10,
          cache_read_input_tokens: 5,
          cache_creation_input_tokens: 1,
          output_tokens: 7,
        },
      },
      'm',
    );
    expect(reply).toEqual({
      text: 'Goal: A. State: B.',
      model: 'claude-x-2025',
      inputTokens: 16,
      outputTokens: 7,
      stopReason: 'max_tokens',
    });
  });

  it('refuses a reply without text', () => {
    expect(() => anthropicWire.reply(200, { content: [] }, 'm')).toThrow(SummaryProviderError);
    expect(() => anthropicWire.reply(200, { error: 'x' }, 'm')).toThrow(/no content/);
  });

  it('reads "prompt is too long" as SummaryTooLongError with the numbers', () => {
    const error = anthropicWire.error(
      400,
      JSON.stringify({
        type: 'error',
        error: {
          type: 'invalid_request_error',
          message: 'prompt is too long: 210000 tokens > 200000 maximum',
        },
        request_id: 'req_1',
      }),
    );
    expect(error).toBeInstanceOf(SummaryTooLongError);
    expect(error).toMatchObject({
      status: 400,
      type: 'invalid_request_error',
      overflow: { measuredTokens: 210000, limitTokens: 200000, provider: 'anthropic' },
    });
  });

  it('reads 413 request_too_large as too long without numbers', () => {
    const error = anthropicWire.error(
      413,
      JSON.stringify({
        type: 'error',
        error: {
          type: 'request_too_large',
          message: 'Request exceeds the maximum allowed number of bytes.',
        },
      }),
    );
    expect(error).toBeInstanceOf(SummaryTooLongError);
    expect((error as SummaryTooLongError).overflow).toBeNull();
  });

  it('keeps other errors as provider errors with their type', () => {
    const overloaded = anthropicWire.error(
      529,
      JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }),
    );
    expect(overloaded).not.toBeInstanceOf(SummaryTooLongError);
    expect(overloaded).toMatchObject({
      status: 529,
      type: 'overloaded_error',
      message: 'Overloaded',
    });
    const otherBadRequest = anthropicWire.error(
      400,
      JSON.stringify({
        type: 'error',
        error: { type: 'invalid_request_error', message: 'max_tokens: Field required' },
      }),
    );
    expect(otherBadRequest).not.toBeInstanceOf(SummaryTooLongError);
  });

  it('survives a non-JSON error page (a proxy in front)', () => {
    const error = anthropicWire.error(502, '<html>Bad Gateway</html>');
    expect(error).toMatchObject({
      status: 502,
      type: 'server_error',
      message: '<html>Bad Gateway</html>',
    });
  });
});

describe('openai-chat wire', () => {
  it('builds the chat completions request, with the cap under the field asked for', () => {
    const wire = openAIChatWire();
    expect(wire.headers('sk')).toEqual({
      'content-type': 'application/json',
      authorization: 'Bearer sk',
    });
    expect(wire.body(call)).toEqual({
      model: 'm',
      messages: [
        { role: 'system', content: 'sys' },
        { role: 'user', content: 'hello' },
      ],
      max_completion_tokens: 100,
    });
    expect(openAIChatWire('max_tokens').body(call)).toMatchObject({ max_tokens: 100 });
    expect(openAIChatWire('max_tokens').body(call)).not.toHaveProperty('max_completion_tokens');
  });

  it('reads choices[0].message.content and usage', () => {
    const reply = openAIChatWire().reply(
      200,
      {
        model: 'gpt-4o-mini-2024-07-18',
        choices: [
          { index: 0, message: { role: 'assistant', content: ' S ' }, finish_reason: 'length' },
        ],
        usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 },
      },
      'gpt-4o-mini',
    );
    expect(reply).toEqual({
      text: 'S',
      model: 'gpt-4o-mini-2024-07-18',
      inputTokens: 12,
      outputTokens: 3,
      stopReason: 'length',
    });
  });

  it('refuses a refusal or a null content', () => {
    expect(() =>
      openAIChatWire().reply(
        200,
        { choices: [{ message: { content: null, refusal: 'I cannot.' } }] },
        'm',
      ),
    ).toThrow(/I cannot/);
  });

  it('reads context_length_exceeded as SummaryTooLongError, with numbers when the message has them', () => {
    const withNumbers = openAIChatWire().error(
      400,
      JSON.stringify({
        error: {
          message:
            "This model's maximum context length is 128000 tokens. However, your messages resulted in 130532 tokens. Please reduce the length of the messages.",
          type: 'invalid_request_error',
          param: 'messages',
          code: 'context_length_exceeded',
        },
      }),
    );
    expect(withNumbers).toBeInstanceOf(SummaryTooLongError);
    expect((withNumbers as SummaryTooLongError).overflow).toMatchObject({
      measuredTokens: 130532,
      limitTokens: 128000,
    });

    const opaque = openAIChatWire().error(
      400,
      JSON.stringify({
        error: {
          message: 'Your input exceeds the context window of this model.',
          type: 'invalid_request_error',
          param: 'input',
          code: 'context_length_exceeded',
        },
      }),
    );
    expect(opaque).toBeInstanceOf(SummaryTooLongError);
    expect((opaque as SummaryTooLongError).overflow).toBeNull();
  });

  it('keeps rate limits and server errors as provider errors', () => {
    const limited = openAIChatWire().error(
      429,
      JSON.stringify({
        error: {
          message: 'Rate limit reached',
          type: 'requests',
          param: null,
          code: 'rate_limit_exceeded',
        },
      }),
    );
    expect(limited).not.toBeInstanceOf(SummaryTooLongError);
    expect(limited).toMatchObject({ status: 429, type: 'requests' });
    expect(openAIChatWire().error(500, '')).toMatchObject({
      status: 500,
      type: 'server_error',
      message: 'HTTP 500',
    });
  });
});
