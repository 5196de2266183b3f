import { encodeOpenAIChat } from './openai-chat';
import { PNG_DATA, chain, sampleConversation, text } from '../testing/conversation';
import { makePngBase64 } from '../testing/images';

const tools = [{ name: 'read', description: 'Read a file', input_schema: { type: 'object' } }];

describe('encodeOpenAIChat', () => {
  it('encodes a whole conversation into a Chat Completions body', () => {
    const body = encodeOpenAIChat(sampleConversation('gpt-4o'), {
      model: 'gpt-4o',
      system: 'You are Arbor.',
      tools,
      maxTokens: 512,
    });
    expect(body).toEqual({
      model: 'gpt-4o',
      messages: [
        { role: 'system', content: 'You are Arbor.' },
        { role: 'system', content: 'Be terse.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Look at this' },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_DATA}` } },
          ],
        },
        {
          role: 'assistant',
          content: 'Checking both files.',
          tool_calls: [
            {
              id: 'call_1',
              type: 'function',
              function: { name: 'read', arguments: '{"path":"a.txt"}' },
            },
            {
              id: 'call_2',
              type: 'function',
              function: { name: 'read', arguments: '{"path":"b.txt"}' },
            },
          ],
        },
        // In the order of the calls, not of the stored results; the error is said in the text.
        { role: 'tool', tool_call_id: 'call_1', content: '[tool error] ENOENT: a.txt' },
        { role: 'tool', tool_call_id: 'call_2', content: 'B contents' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_3', type: 'function', function: { name: 'screenshot', arguments: '{}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_3', content: 'screen' },
        // Tool messages take text only: the screenshot follows in a user message.
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Image output of tool call call_3:' },
            {
              type: 'image_url',
              image_url: { url: `data:image/png;base64,${makePngBase64(8, 6)}` },
            },
            { type: 'text', text: 'What do you see?' },
          ],
        },
        { role: 'assistant', content: 'A login page.' },
      ],
      tools: [
        {
          type: 'function',
          function: { name: 'read', description: 'Read a file', parameters: { type: 'object' } },
        },
      ],
      max_completion_tokens: 512,
    });
  });

  it('uses the developer role for o-series and gpt-5 models, or the one asked for', () => {
    const messages = chain([{ role: 'user', content: [text('hi')] }]);
    expect(encodeOpenAIChat(messages, { model: 'o3', system: 's' }).messages[0].role).toBe(
      'developer',
    );
    expect(encodeOpenAIChat(messages, { model: 'gpt-5-mini', system: 's' }).messages[0].role).toBe(
      'developer',
    );
    expect(
      encodeOpenAIChat(messages, { model: 'o3', system: 's', systemRole: 'system' }).messages[0]
        .role,
    ).toBe('system');
  });

  it('drops thinking (not accepted) and skips an assistant message left empty', () => {
    const messages = chain([
      { role: 'user', content: [text('hi')] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'hmm', signature: 's' },
          { type: 'redacted_thinking', data: 'x' },
        ],
      },
      { role: 'user', content: [text('still there?')] },
    ]);
    const body = encodeOpenAIChat(messages, { model: 'gpt-4o' });
    expect(body.messages).toEqual([
      { role: 'user', content: 'hi' },
      { role: 'user', content: 'still there?' },
    ]);
    expect(JSON.stringify(body)).not.toContain('hmm');
  });

  it('says "(no output)" for an empty tool result and serialises odd inputs', () => {
    const messages = chain([
      { role: 'user', content: [text('go')] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'x', input: undefined }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: [] }] },
    ]);
    const body = encodeOpenAIChat(messages, { model: 'gpt-4o' });
    expect(body.messages[1]).toMatchObject({
      tool_calls: [{ function: { arguments: '{}' } }],
    });
    expect(body.messages[2]).toEqual({ role: 'tool', tool_call_id: 't', content: '(no output)' });
  });
});
