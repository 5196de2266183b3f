import { encodeOpenAIResponses } from './openai-responses';
import { PNG_DATA, chain, sampleConversation, text } from '../testing/conversation';
import { makePngBase64 } from '../testing/images';

describe('encodeOpenAIResponses', () => {
  it('encodes a whole conversation into Responses API input items', () => {
    const body = encodeOpenAIResponses(sampleConversation('gpt-4.1'), {
      model: 'gpt-4.1',
      system: 'You are Arbor.',
      tools: [{ name: 'read', input_schema: { type: 'object' } }],
      maxTokens: 256,
    });
    expect(body).toEqual({
      model: 'gpt-4.1',
      instructions: 'You are Arbor.',
      input: [
        { type: 'message', role: 'system', content: [{ type: 'input_text', text: 'Be terse.' }] },
        {
          type: 'message',
          role: 'user',
          content: [
            { type: 'input_text', text: 'Look at this' },
            { type: 'input_image', image_url: `data:image/png;base64,${PNG_DATA}`, detail: 'auto' },
          ],
        },
        { type: 'message', role: 'assistant', content: 'Checking both files.' },
        { type: 'function_call', call_id: 'call_1', name: 'read', arguments: '{"path":"a.txt"}' },
        { type: 'function_call', call_id: 'call_2', name: 'read', arguments: '{"path":"b.txt"}' },
        { type: 'function_call_output', call_id: 'call_1', output: '[tool error] ENOENT: a.txt' },
        { type: 'function_call_output', call_id: 'call_2', output: 'B contents' },
        { type: 'function_call', call_id: 'call_3', name: 'screenshot', arguments: '{}' },
        {
          type: 'function_call_output',
          call_id: 'call_3',
          output: [
            { type: 'input_text', text: 'screen' },
            {
              type: 'input_image',
              image_url: `data:image/png;base64,${makePngBase64(8, 6)}`,
              detail: 'auto',
            },
          ],
        },
        {
          type: 'message',
          role: 'user',
          content: [{ type: 'input_text', text: 'What do you see?' }],
        },
        { type: 'message', role: 'assistant', content: 'A login page.' },
      ],
      tools: [{ type: 'function', name: 'read', parameters: { type: 'object' }, strict: false }],
      max_output_tokens: 256,
    });
  });

  it('keeps assistant text and calls in their order and drops thinking', () => {
    const messages = chain([
      { role: 'user', content: [text('go')] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'secret plan', signature: 's' },
          text('first'),
          { type: 'tool_use', id: 'a', name: 'x', input: { n: 1 } },
          text('then'),
          text('more'),
        ],
      },
    ]);
    const { input } = encodeOpenAIResponses(messages, { model: 'o3', system: '  ' });
    // One easy input message (string content) per text block: every Responses backend takes it.
    expect(input.slice(1)).toEqual([
      { type: 'message', role: 'assistant', content: 'first' },
      { type: 'function_call', call_id: 'a', name: 'x', arguments: '{"n":1}' },
      { type: 'message', role: 'assistant', content: 'then' },
      { type: 'message', role: 'assistant', content: 'more' },
    ]);
    expect(JSON.stringify(input)).not.toContain('secret plan');
    // Encoding 1 (only to reproduce contexts recorded with it) keeps the old output_text form.
    const legacy = encodeOpenAIResponses(messages, { model: 'o3', encoding: 1 }).input;
    expect(legacy.slice(1)).toEqual([
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'first' }] },
      { type: 'function_call', call_id: 'a', name: 'x', arguments: '{"n":1}' },
      {
        type: 'message',
        role: 'assistant',
        content: [
          { type: 'output_text', text: 'then' },
          { type: 'output_text', text: 'more' },
        ],
      },
    ]);
  });

  it('uses the developer role for history system messages of reasoning models', () => {
    const messages = chain([
      { role: 'system', content: [text('rules')] },
      { role: 'user', content: [text('hi')] },
    ]);
    const { input, instructions } = encodeOpenAIResponses(messages, { model: 'o4-mini' });
    expect(instructions).toBeUndefined();
    expect(input[0]).toMatchObject({ type: 'message', role: 'developer' });
  });
});
