import { encodeAnthropic } from './anthropic';
import { PNG_DATA, chain, png, sampleConversation, text } from '../testing/conversation';
import { makePngBase64 } from '../testing/images';

const tools = [
  { name: 'read', description: 'Read a file', input_schema: { type: 'object' } },
  { name: 'screenshot', input_schema: { type: 'object' } },
];

describe('encodeAnthropic', () => {
  it('encodes a whole conversation into a Messages API body', () => {
    const body = encodeAnthropic(sampleConversation(), {
      model: 'claude-sonnet-4-5',
      system: 'You are Arbor.',
      tools,
      maxTokens: 1024,
    });
    expect(body).toEqual({
      model: 'claude-sonnet-4-5',
      max_tokens: 1024,
      system: 'You are Arbor.\n\nBe terse.',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Look at this' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_DATA } },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'Let me check both files.', signature: 'sig-A==' },
            { type: 'text', text: 'Checking both files.' },
            { type: 'tool_use', id: 'call_1', name: 'read', input: { path: 'a.txt' } },
            { type: 'tool_use', id: 'call_2', name: 'read', input: { path: 'b.txt' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'call_2', content: 'B contents' },
            {
              type: 'tool_result',
              tool_use_id: 'call_1',
              content: [{ type: 'text', text: 'ENOENT: a.txt' }],
              is_error: true,
            },
          ],
        },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'call_3', name: 'screenshot', input: {} }],
        },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 'call_3',
              content: [
                { type: 'text', text: 'screen' },
                {
                  type: 'image',
                  source: { type: 'base64', media_type: 'image/png', data: makePngBase64(8, 6) },
                },
              ],
            },
            { type: 'text', text: 'What do you see?' },
          ],
        },
        { role: 'assistant', content: [{ type: 'text', text: 'A login page.' }] },
      ],
      tools: [
        { name: 'read', description: 'Read a file', input_schema: { type: 'object' } },
        { name: 'screenshot', input_schema: { type: 'object' } },
      ],
    });
  });

  it('keeps thinking and redacted thinking byte for byte, signature included', () => {
    const signature = 'EqQBCkgIARABGAIiQL/\u00e9+==';
    const messages = chain([
      { role: 'user', content: [text('hi')] },
      {
        role: 'assistant',
        model: 'claude-opus-4-1',
        content: [
          { type: 'thinking', thinking: '  spaced\n thoughts  ', signature },
          { type: 'redacted_thinking', data: 'opaque-bytes' },
          text('hello'),
        ],
      },
    ]);
    const [, assistant] = encodeAnthropic(messages, { model: 'claude-opus-4-1' }).messages;
    expect(assistant.content[0]).toEqual({
      type: 'thinking',
      thinking: '  spaced\n thoughts  ',
      signature,
    });
    expect(assistant.content[1]).toEqual({ type: 'redacted_thinking', data: 'opaque-bytes' });
  });

  it('drops thinking recorded from another provider (its signature would be refused)', () => {
    const messages = chain([
      { role: 'user', content: [text('hi')] },
      {
        role: 'assistant',
        model: 'gemini-2.5-pro',
        content: [{ type: 'thinking', thinking: 'x', signature: 'gemini-sig' }, text('hello')],
      },
    ]);
    const [, assistant] = encodeAnthropic(messages, { model: 'claude-opus-4-1' }).messages;
    expect(assistant.content).toEqual([{ type: 'text', text: 'hello' }]);
  });

  it('merges consecutive messages of one role and puts tool results first', () => {
    const messages = chain([
      { role: 'user', content: [text('go')] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'ls', input: {} }] },
      { role: 'user', content: [text('also this')] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'a b' }] },
    ]);
    const body = encodeAnthropic(messages, { model: 'claude-opus-4-1' });
    expect(body.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(body.messages[2].content.map((b) => b.type)).toEqual(['tool_result', 'text']);
  });

  it('drops blank text, skips emptied messages and defaults max_tokens', () => {
    const messages = chain([
      { role: 'user', content: [text('  '), text('real')] },
      { role: 'assistant', content: [text('')] },
      { role: 'user', content: [png()] },
    ]);
    const body = encodeAnthropic(messages, { model: 'claude-opus-4-1' });
    expect(body.max_tokens).toBe(4096);
    expect(body.messages).toHaveLength(1);
    expect(body.messages[0].content.map((b) => b.type)).toEqual(['text', 'image']);
    expect(body).not.toHaveProperty('system');
    expect(body).not.toHaveProperty('tools');
  });

  it('keeps thinking first when a merge would put it after other content', () => {
    const messages = chain([
      { role: 'user', content: [text('go')] },
      { role: 'assistant', content: [text('first')] },
      { role: 'system', content: [text('note')] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 't', signature: 's' },
          { type: 'tool_use', id: 't1', name: 'ls', input: {} },
        ],
      },
    ]);
    const [, assistant] = encodeAnthropic(messages, { model: 'claude-opus-4-1' }).messages;
    expect(assistant.content.map((b) => b.type)).toEqual(['text', 'tool_use']);
  });
});
