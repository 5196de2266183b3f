import fc from 'fast-check';
import { type MessageInput } from './messages';
import { parseMessage, parseMessages, type ValidationIssue } from './validate-message';
import { gifBase64, jpegBase64, pngBase64, webpBase64 } from './testing/images';
import { arbTurn } from './testing/arbitraries';

const user = (...content: unknown[]): Record<string, unknown> => ({ role: 'user', content });
const assistant = (...content: unknown[]): Record<string, unknown> => ({
  role: 'assistant',
  content,
});
const text = (t: string) => ({ type: 'text', text: t });
const image = (media_type: string, data: string) => ({
  type: 'image',
  source: { type: 'base64', media_type, data },
});

/** The errors of a parse that must fail. */
const errorsOf = (input: unknown, options?: { maxImageBytes?: number }): ValidationIssue[] => {
  const result = parseMessages(input, options);
  if (result.ok) throw new Error('expected the parse to fail');
  return [...result.errors];
};

const only = (input: unknown, options?: { maxImageBytes?: number }) => {
  const errors = errorsOf(input, options);
  expect(errors).toHaveLength(1);
  return errors[0];
};

describe('parseMessages: accepts', () => {
  it('every block type in its role and keeps strings byte-exact', () => {
    const input = [
      { role: 'system', content: [text('be brief')] },
      {
        id: 'u_1',
        role: 'user',
        content: [text('look'), image('image/png', pngBase64())],
        pinned: true,
      },
      {
        role: 'assistant',
        model: 'claude-x',
        usage: { input_tokens: 10, output_tokens: 2 },
        metadata: { k: 1 },
        content: [
          { type: 'thinking', thinking: ' hmm\n', signature: 'sig==' },
          { type: 'redacted_thinking', data: 'opaque' },
          text('calling'),
          { type: 'tool_use', id: 't1', name: 'ls', input: { path: '.' } },
        ],
      },
      user(
        { type: 'tool_result', tool_use_id: 't1', content: 'a b', is_error: false },
        {
          type: 'tool_result',
          tool_use_id: 't2',
          content: [text('x'), image('image/gif', gifBase64())],
        },
        text('and also'),
      ),
      user(image('image/jpeg', jpegBase64()), image('image/webp', webpBase64())),
    ];
    const result = parseMessages(input);
    expect(result).toEqual({ ok: true, value: input });
  });

  it('drops unknown fields on messages and blocks', () => {
    const result = parseMessages([
      {
        role: 'user',
        content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } }],
        extra: 1,
      },
    ]);
    expect(result).toEqual({ ok: true, value: [{ role: 'user', content: [text('hi')] }] });
  });

  it('round-trips any valid generated turn', () => {
    fc.assert(
      fc.property(arbTurn(), (turn: MessageInput[]) => {
        expect(parseMessages(JSON.parse(JSON.stringify(turn)))).toEqual({ ok: true, value: turn });
      }),
      { numRuns: 50 },
    );
  });

  it('never throws, whatever it is given', () => {
    fc.assert(
      fc.property(fc.anything(), (value) => {
        const result = parseMessages(value);
        expect(typeof result.ok).toBe('boolean');
        const single = parseMessage(value);
        expect(typeof single.ok).toBe('boolean');
      }),
    );
  });

  it('parses an empty array (the turn rules reject empty turns)', () => {
    expect(parseMessages([])).toEqual({ ok: true, value: [] });
  });
});

describe('parseMessages: rejects with a path and a code', () => {
  it('a non-array', () => {
    expect(only({})).toMatchObject({ path: 'messages', code: 'invalid_type' });
  });

  it('free text where the log keeps a name in clear: a model, a tool call id', () => {
    const free = 'Jane Doe, see notes';
    const call = (id: string) => ({
      role: 'assistant',
      content: [{ type: 'tool_use', id, name: 'run', input: {} }],
    });
    expect(only([call(free)])).toMatchObject({
      path: 'messages[0].content[0].id',
      code: 'invalid_tool_call_id',
    });
    expect(
      only([
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'x'.repeat(257), content: 'ok' }],
        },
      ]),
    ).toMatchObject({ path: 'messages[0].content[0].tool_use_id', code: 'invalid_tool_call_id' });
    expect(only([{ role: 'assistant', model: free, content: [text('a')] }])).toMatchObject({
      path: 'messages[0].model',
      code: 'invalid_model',
    });
    const named = parseMessages([
      { role: 'assistant', model: '<synthetic>', content: [text('a')] },
      { ...call('call_abc|fc_1'), model: 'models/gemini-2.5-pro' },
    ]);
    expect(named.ok).toBe(true);
  });

  it('a non-object message', () => {
    expect(only([1])).toMatchObject({ path: 'messages[0]', code: 'invalid_type' });
  });

  it('a missing or unknown role', () => {
    expect(only([{ content: [text('x')] }])).toMatchObject({
      path: 'messages[0].role',
      code: 'required',
    });
    expect(only([{ role: 'tool', content: [text('x')] }])).toMatchObject({
      path: 'messages[0].role',
      code: 'invalid_role',
    });
  });

  it('an unknown block type, naming it', () => {
    const e = only([user(text('ok'), { type: 'document', source: {} })]);
    expect(e).toMatchObject({ path: 'messages[0].content[1].type', code: 'unknown_block_type' });
    expect(e.message).toContain('"document"');
  });

  it('missing, non-array or empty content', () => {
    expect(only([{ role: 'user' }])).toMatchObject({
      path: 'messages[0].content',
      code: 'required',
    });
    expect(only([{ role: 'user', content: 'hi' }])).toMatchObject({
      path: 'messages[0].content',
      code: 'invalid_type',
    });
    expect(only([{ role: 'user', content: [] }])).toMatchObject({
      path: 'messages[0].content',
      code: 'empty_content',
    });
  });

  it('empty or non-string text', () => {
    expect(only([user(text(''))])).toMatchObject({
      path: 'messages[0].content[0].text',
      code: 'empty_text',
    });
    expect(only([user({ type: 'text', text: 3 })])).toMatchObject({
      path: 'messages[0].content[0].text',
      code: 'invalid_type',
    });
  });

  it('blocks outside their role', () => {
    expect(only([{ role: 'system', content: [image('image/png', pngBase64())] }])).toMatchObject({
      path: 'messages[0].content[0].type',
      code: 'block_not_allowed',
    });
    expect(only([user({ type: 'tool_use', id: 'a', name: 'b', input: {} })])).toMatchObject({
      code: 'block_not_allowed',
    });
    expect(
      only([assistant({ type: 'tool_result', tool_use_id: 'a', content: 'x' })]),
    ).toMatchObject({
      code: 'block_not_allowed',
    });
    expect(only([user({ type: 'thinking', thinking: 'a', signature: 'b' })])).toMatchObject({
      code: 'block_not_allowed',
    });
    expect(only([assistant(image('image/png', pngBase64()))])).toMatchObject({
      code: 'block_not_allowed',
    });
  });

  describe('images', () => {
    const at = 'messages[0].content[0].source';
    it('invalid base64', () => {
      for (const bad of [
        '',
        'iVBO R',
        pngBase64().replace(/=+$/, ''),
        pngBase64(31) + '\n',
        'iVBORw-_',
      ]) {
        expect(only([user(image('image/png', bad))])).toMatchObject({
          path: `${at}.data`,
          code: 'invalid_base64',
        });
      }
    });

    it('an unsupported media type or source type', () => {
      expect(only([user(image('image/bmp', pngBase64()))])).toMatchObject({
        path: `${at}.media_type`,
        code: 'unsupported_media_type',
      });
      const ftp = {
        type: 'image',
        source: { type: 'ftp', media_type: 'image/png', data: pngBase64() },
      };
      expect(only([user(ftp)])).toMatchObject({
        path: `${at}.type`,
        code: 'unsupported_source_type',
      });
      // A url source without its url (bytes under `data` do not make it a base64 source).
      const url = {
        type: 'image',
        source: { type: 'url', media_type: 'image/png', data: pngBase64() },
      };
      expect(only([user(url)])).toMatchObject({ path: `${at}.url`, code: 'required' });
    });

    it('a PNG declared as JPEG, and data that is no image', () => {
      expect(only([user(image('image/jpeg', pngBase64()))])).toMatchObject({
        path: `${at}.media_type`,
        code: 'media_type_mismatch',
      });
      expect(only([user(image('image/gif', webpBase64()))])).toMatchObject({
        code: 'media_type_mismatch',
      });
      const notImage = Buffer.from('just some text bytes').toString('base64');
      expect(only([user(image('image/png', notImage))])).toMatchObject({
        path: `${at}.data`,
        code: 'unrecognized_image',
      });
    });

    it('images over the decoded size limit, default 5 MiB and configurable', () => {
      const limit = 5 * 1024 * 1024;
      expect(parseMessages([user(image('image/png', pngBase64(limit)))]).ok).toBe(true);
      expect(only([user(image('image/png', pngBase64(limit + 1)))])).toMatchObject({
        path: `${at}.data`,
        code: 'image_too_large',
      });
      expect(
        only([user(image('image/png', pngBase64(101)))], { maxImageBytes: 100 }),
      ).toMatchObject({
        code: 'image_too_large',
      });
      expect(
        parseMessages([user(image('image/png', pngBase64(100)))], { maxImageBytes: 100 }).ok,
      ).toBe(true);
    });

    it('a missing source', () => {
      expect(only([user({ type: 'image' })])).toMatchObject({ path: at, code: 'required' });
    });
  });

  it('tool_use without id, name or object input', () => {
    const base = { type: 'tool_use', id: 't', name: 'n', input: {} };
    const p = 'messages[0].content[0]';
    expect(only([assistant({ ...base, id: '' })])).toMatchObject({
      path: `${p}.id`,
      code: 'empty_string',
    });
    expect(only([assistant({ ...base, name: undefined })])).toMatchObject({
      path: `${p}.name`,
      code: 'required',
    });
    expect(only([assistant({ ...base, input: [1] })])).toMatchObject({
      path: `${p}.input`,
      code: 'invalid_type',
    });
    expect(only([assistant({ ...base, input: 'x' })])).toMatchObject({
      path: `${p}.input`,
      code: 'invalid_type',
    });
  });

  it('tool_result with bad id, content or is_error', () => {
    const base = { type: 'tool_result', tool_use_id: 't', content: 'ok' };
    const p = 'messages[0].content[0]';
    expect(only([user({ ...base, tool_use_id: '' })])).toMatchObject({
      path: `${p}.tool_use_id`,
      code: 'empty_string',
    });
    expect(only([user({ ...base, content: undefined })])).toMatchObject({
      path: `${p}.content`,
      code: 'required',
    });
    expect(only([user({ ...base, content: 5 })])).toMatchObject({
      path: `${p}.content`,
      code: 'invalid_type',
    });
    expect(
      only([user({ ...base, content: [{ type: 'tool_use', id: 'a', name: 'b', input: {} }] })]),
    ).toMatchObject({ path: `${p}.content[0].type`, code: 'block_not_allowed' });
    expect(only([user({ ...base, content: [{ type: 'audio' }] })])).toMatchObject({
      path: `${p}.content[0].type`,
      code: 'unknown_block_type',
    });
    expect(only([user({ ...base, content: [image('image/jpeg', pngBase64())] })])).toMatchObject({
      path: `${p}.content[0].source.media_type`,
      code: 'media_type_mismatch',
    });
    expect(only([user({ ...base, is_error: 'yes' })])).toMatchObject({
      path: `${p}.is_error`,
      code: 'invalid_type',
    });
  });

  it('thinking without its strings, redacted_thinking without data', () => {
    const p = 'messages[0].content[0]';
    expect(only([assistant({ type: 'thinking', thinking: 'x' })])).toMatchObject({
      path: `${p}.signature`,
      code: 'required',
    });
    expect(only([assistant({ type: 'thinking', thinking: 1, signature: 's' })])).toMatchObject({
      path: `${p}.thinking`,
      code: 'invalid_type',
    });
    expect(only([assistant({ type: 'redacted_thinking' })])).toMatchObject({
      path: `${p}.data`,
      code: 'required',
    });
  });

  it('bad message ids', () => {
    for (const id of ['', 'a b', 'a/b', 'é', 'x'.repeat(129), 7]) {
      expect(only([{ id, role: 'user', content: [text('x')] }])).toMatchObject({
        path: 'messages[0].id',
        code: 'invalid_message_id',
      });
    }
    expect(
      parseMessages([{ id: 'A-z_9'.repeat(25) + 'abc', role: 'user', content: [text('x')] }]).ok,
    ).toBe(true);
  });

  it('bad optional fields', () => {
    const m = (extra: object) => [{ role: 'assistant', content: [text('x')], ...extra }];
    expect(only(m({ pinned: 'yes' }))).toMatchObject({
      path: 'messages[0].pinned',
      code: 'invalid_type',
    });
    expect(only(m({ model: '' }))).toMatchObject({
      path: 'messages[0].model',
      code: 'empty_string',
    });
    expect(only(m({ usage: { input_tokens: -1 } }))).toMatchObject({
      path: 'messages[0].usage.input_tokens',
      code: 'invalid_number',
    });
    expect(only(m({ usage: { output_tokens: 1.5 } }))).toMatchObject({ code: 'invalid_number' });
    expect(only(m({ metadata: [] }))).toMatchObject({
      path: 'messages[0].metadata',
      code: 'invalid_type',
    });
  });

  it("OpenAI's usage details: objects, and every cached count checked", () => {
    const m = (usage: object) => [{ role: 'assistant', content: [text('x')], usage }];
    for (const details of ['x', null, []]) {
      expect(only(m({ prompt_tokens: 3, prompt_tokens_details: details }))).toMatchObject({
        path: 'messages[0].usage.prompt_tokens_details',
        code: 'invalid_type',
      });
    }
    // The Chat Completions count is the one used; the Responses one is still a count.
    expect(
      only(
        m({
          prompt_tokens: 3,
          prompt_tokens_details: { cached_tokens: 1 },
          input_tokens_details: { cached_tokens: -1 },
        }),
      ),
    ).toMatchObject({
      path: 'messages[0].usage.input_tokens_details.cached_tokens',
      code: 'invalid_number',
    });
  });

  it('reports every problem, in every message', () => {
    const errors = errorsOf([
      user(text('')),
      { role: 'bot', content: [] },
      assistant({ type: 'x' }),
    ]);
    expect(errors.map((e) => `${e.path}:${e.code}`)).toEqual([
      'messages[0].content[0].text:empty_text',
      'messages[1].role:invalid_role',
      'messages[1].content:empty_content',
      'messages[2].content[0].type:unknown_block_type',
    ]);
  });
});

describe('parseMessage', () => {
  it('parses one message with its own path prefix', () => {
    expect(parseMessage({ role: 'user', content: [text('x')] })).toEqual({
      ok: true,
      value: { role: 'user', content: [text('x')] },
    });
    const result = parseMessage({ role: 'user', content: [] });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors[0].path).toBe('message.content');
  });
});

describe('nesting depth', () => {
  const deep = (depth: number): unknown => {
    let v: unknown = 1;
    for (let i = 0; i < depth; i++) v = { a: v };
    return v;
  };
  const withInput = (input: unknown) => ({
    role: 'assistant',
    content: [{ type: 'tool_use', id: 't', name: 'run', input }],
  });
  it('rejects a message nested 10,000 levels deep with too_deep at the message path', () => {
    const r = parseMessages([withInput(deep(10_000))]);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors.map((e) => [e.path, e.code])).toEqual([['messages[0]', 'too_deep']]);
  });
  it('accepts ordinary nesting', () => {
    expect(parseMessages([withInput(deep(50))]).ok).toBe(true);
  });
  it('measures what is kept: a deep unknown field is dropped, not refused', () => {
    const r = parseMessages([{ ...withInput({}), cache_control: deep(10_000) }]);
    expect(r.ok && r.value[0]).toEqual(withInput({}));
  });
});
