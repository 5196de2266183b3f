/**
 * The blocks real frameworks carry beyond Anthropic's: OpenAI reasoning items, opaque provider
 * blocks (server-side compaction), tool results with their tool's name, images by URL or by
 * provider file id, and client data on blocks and messages.
 */
import { parseMessages, type ValidationIssue } from './validate-message';

const parse = (input: unknown) => parseMessages(input);
const okValue = (input: unknown) => {
  const r = parse(input);
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.value;
};
const errors = (input: unknown): ValidationIssue[] => {
  const r = parse(input);
  if (r.ok) throw new Error('expected the parse to fail');
  return [...r.errors];
};

describe('the extended message model', () => {
  it('keeps a reasoning block, its summary and encrypted content byte-exact', () => {
    const block = {
      type: 'reasoning',
      id: 'rs_1',
      summary: [{ type: 'summary_text', text: ' plan\n' }],
      encrypted_content: 'gAAAAB==',
    };
    const [m] = okValue([{ role: 'assistant', model: 'gpt-5', content: [block] }]);
    expect(JSON.stringify(m.content[0])).toBe(JSON.stringify(block));
    // Without encrypted content (store: true) it parses too; a null one is refused, as the
    // contract's schema refuses it (OpenAI's null is the client's to leave out).
    const { encrypted_content: _e, ...withoutIt } = block;
    const bare = okValue([{ role: 'assistant', content: [withoutIt] }])[0].content[0];
    expect(bare).toEqual({ type: 'reasoning', id: 'rs_1', summary: block.summary });
    expect(
      errors([{ role: 'assistant', content: [{ ...block, encrypted_content: null }] }]),
    ).toMatchObject([{ path: 'messages[0].content[0].encrypted_content', code: 'invalid_type' }]);
  });

  it('refuses a reasoning block without id or with a malformed summary, and in a user message', () => {
    const e = errors([
      { role: 'assistant', content: [{ type: 'reasoning', id: '', summary: [{ type: 'x' }] }] },
      { role: 'user', content: [{ type: 'reasoning', id: 'rs', summary: [] }] },
    ]);
    expect(e.map((x) => [x.path, x.code])).toEqual([
      ['messages[0].content[0].id', 'empty_string'],
      ['messages[0].content[0].summary[0].type', 'invalid_type'],
      ['messages[1].content[0].type', 'block_not_allowed'],
    ]);
  });

  it('keeps an opaque provider block byte for byte, and checks its provider', () => {
    const item = {
      type: 'compaction',
      id: 'cmp_1',
      encrypted_content: 'enc',
      extra: [1, { a: 2 }],
    };
    const [m] = okValue([
      {
        role: 'assistant',
        content: [{ type: 'provider', provider: 'openai', model: 'gpt-5', item }],
      },
    ]);
    expect(m.content[0]).toEqual({ type: 'provider', provider: 'openai', model: 'gpt-5', item });
    expect(JSON.stringify((m.content[0] as { item: unknown }).item)).toBe(JSON.stringify(item));
    const e = errors([
      {
        role: 'assistant',
        content: [{ type: 'provider', provider: 'mistral', item: { type: 'x' } }],
      },
      { role: 'assistant', content: [{ type: 'provider', provider: 'anthropic', item: [] }] },
      { role: 'assistant', content: [{ type: 'provider', provider: 'anthropic', item: {} }] },
    ]);
    expect(e.map((x) => [x.path, x.code])).toEqual([
      ['messages[0].content[0].provider', 'unknown_provider'],
      ['messages[1].content[0].item', 'invalid_type'],
      ['messages[2].content[0].item.type', 'required'],
    ]);
  });

  it('keeps a tool result name; an empty one is refused', () => {
    const [m] = okValue([
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'c1', name: 'ls', content: 'a' }],
      },
    ]);
    expect(m.content[0]).toEqual({
      type: 'tool_result',
      tool_use_id: 'c1',
      name: 'ls',
      content: 'a',
    });
    expect(
      errors([
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'c1', name: '', content: 'a' }],
        },
      ]),
    ).toMatchObject([{ path: 'messages[0].content[0].name', code: 'empty_string' }]);
  });

  it('takes images by URL and by provider file id, and refuses what is not one', () => {
    const img = (source: unknown) => ({ role: 'user', content: [{ type: 'image', source }] });
    const value = okValue([
      img({ type: 'url', url: 'https://example.com/a.png' }),
      img({ type: 'file', provider: 'openai', file_id: 'file-1' }),
      img({ type: 'file', provider: 'gemini', file_id: 'files/abc', media_type: 'image/png' }),
    ]);
    expect(value.map((m) => m.content[0])).toEqual([
      { type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } },
      { type: 'image', source: { type: 'file', provider: 'openai', file_id: 'file-1' } },
      {
        type: 'image',
        source: { type: 'file', provider: 'gemini', file_id: 'files/abc', media_type: 'image/png' },
      },
    ]);
    const e = errors([
      img({ type: 'url', url: 'data:image/png;base64,AAAA' }),
      img({ type: 'url', url: 'https://example.com/' + 'a'.repeat(9000) }),
      img({ type: 'file', provider: 'dropbox', file_id: 'x' }),
      img({ type: 'file', provider: 'gemini', file_id: 'files/abc' }),
    ]);
    expect(e.map((x) => [x.path, x.code])).toEqual([
      ['messages[0].content[0].source.url', 'invalid_url'],
      ['messages[1].content[0].source.url', 'invalid_url'],
      ['messages[2].content[0].source.provider', 'unknown_provider'],
      ['messages[3].content[0].source.media_type', 'required'],
    ]);
  });

  it('keeps clientData on blocks (nested ones too) and messages, as given', () => {
    const clientData = { itemId: 'msg_1', status: 'completed', z: { b: 1, a: [null, true] } };
    const input = [
      {
        role: 'user',
        clientData: { k: 1 },
        content: [
          { type: 'text', text: 'hi', clientData },
          {
            type: 'tool_result',
            tool_use_id: 'c',
            content: [{ type: 'text', text: 'out', clientData: { inner: true } }],
            clientData: { outer: 1 },
          },
        ],
      },
    ];
    const [m] = okValue(input);
    expect(m.clientData).toEqual({ k: 1 });
    expect(JSON.stringify(m.content)).toBe(JSON.stringify(input[0].content));
    expect(
      errors([
        { role: 'user', clientData: 'x', content: [{ type: 'text', text: 'a', clientData: [] }] },
      ]).map((x) => [x.path, x.code]),
    ).toEqual([
      ['messages[0].clientData', 'invalid_type'],
      ['messages[0].content[0].clientData', 'invalid_type'],
    ]);
  });
});
