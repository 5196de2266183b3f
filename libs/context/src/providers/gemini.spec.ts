import { GEMINI_PLACEHOLDER_SIGNATURE, encodeGemini } from './gemini';
import { PNG_DATA, chain, sampleConversation, text } from '../testing/conversation';
import { makePngBase64 } from '../testing/images';

describe('encodeGemini', () => {
  it('encodes a whole conversation into a generateContent body', () => {
    const body = encodeGemini(sampleConversation('gemini-2.5-pro'), {
      model: 'gemini-2.5-pro',
      system: 'You are Arbor.',
      tools: [{ name: 'read', description: 'Read a file', input_schema: { type: 'object' } }],
      maxTokens: 100,
    });
    expect(body).toEqual({
      systemInstruction: { parts: [{ text: 'You are Arbor.' }, { text: 'Be terse.' }] },
      contents: [
        {
          role: 'user',
          parts: [
            { text: 'Look at this' },
            { inlineData: { mimeType: 'image/png', data: PNG_DATA } },
          ],
        },
        {
          role: 'model',
          parts: [
            // The Gemini signature goes back on the part that followed the thinking block.
            { text: 'Checking both files.', thoughtSignature: 'sig-A==' },
            { functionCall: { id: 'call_1', name: 'read', args: { path: 'a.txt' } } },
            { functionCall: { id: 'call_2', name: 'read', args: { path: 'b.txt' } } },
          ],
        },
        {
          role: 'user',
          parts: [
            {
              functionResponse: {
                id: 'call_1',
                name: 'read',
                response: { error: 'ENOENT: a.txt' },
              },
            },
            {
              functionResponse: { id: 'call_2', name: 'read', response: { output: 'B contents' } },
            },
          ],
        },
        {
          role: 'model',
          parts: [{ functionCall: { id: 'call_3', name: 'screenshot', args: {} } }],
        },
        {
          role: 'user',
          parts: [
            {
              functionResponse: {
                id: 'call_3',
                name: 'screenshot',
                response: { output: 'screen' },
              },
            },
            { text: 'Image output of tool call call_3:' },
            { inlineData: { mimeType: 'image/png', data: makePngBase64(8, 6) } },
            { text: 'What do you see?' },
          ],
        },
        { role: 'model', parts: [{ text: 'A login page.' }] },
      ],
      tools: [
        {
          functionDeclarations: [
            { name: 'read', description: 'Read a file', parametersJsonSchema: { type: 'object' } },
          ],
        },
      ],
      generationConfig: { maxOutputTokens: 100 },
    });
  });

  it('drops thinking from other providers', () => {
    const body = encodeGemini(sampleConversation('claude-sonnet-4-5'), { model: 'gemini-2.5-pro' });
    expect(JSON.stringify(body)).not.toContain('sig-A==');
    expect(JSON.stringify(body)).not.toContain('Let me check');
  });

  it('signs unsigned first calls with the placeholder for gemini-3 models only', () => {
    const conversation = sampleConversation('claude-sonnet-4-5');
    const v3 = encodeGemini(conversation, { model: 'gemini-3-pro-preview' });
    const calls = v3.contents.flatMap((c) => c.parts).filter((p) => 'functionCall' in p);
    expect(calls.map((p) => ('thoughtSignature' in p ? p.thoughtSignature : undefined))).toEqual([
      GEMINI_PLACEHOLDER_SIGNATURE,
      undefined,
      GEMINI_PLACEHOLDER_SIGNATURE,
    ]);
    const v25 = encodeGemini(conversation, { model: 'gemini-2.5-flash' });
    expect(JSON.stringify(v25)).not.toContain(GEMINI_PLACEHOLDER_SIGNATURE);
  });

  it('keeps a real signature and puts a trailing one on a thought part', () => {
    const messages = chain([
      { role: 'user', content: [text('hi')] },
      {
        role: 'assistant',
        model: 'gemini-3-pro-preview',
        content: [
          { type: 'thinking', thinking: '', signature: 'real-sig' },
          { type: 'tool_use', id: 'c', name: 'f', input: 'not an object' },
          { type: 'thinking', thinking: 'tail', signature: 'tail-sig' },
        ],
      },
    ]);
    const body = encodeGemini(messages, { model: 'gemini-3-pro-preview' });
    expect(body.contents[1].parts).toEqual([
      {
        functionCall: { id: 'c', name: 'f', args: { value: 'not an object' } },
        thoughtSignature: 'real-sig',
      },
      { text: 'tail', thought: true, thoughtSignature: 'tail-sig' },
    ]);
  });

  it('leaves call ids out on request', () => {
    const body = encodeGemini(sampleConversation('gemini-2.5-pro'), {
      model: 'gemini-2.5-pro',
      callIds: false,
    });
    expect(body.contents[1].parts[1]).toEqual({
      functionCall: { name: 'read', args: { path: 'a.txt' } },
    });
    expect(body.contents[2].parts[0]).toEqual({
      functionResponse: { name: 'read', response: { error: 'ENOENT: a.txt' } },
    });
  });

  it('merges consecutive turns of one role', () => {
    const messages = chain([
      { role: 'user', content: [text('a')] },
      { role: 'system', content: [text('s')] },
      { role: 'user', content: [text('b')] },
    ]);
    const body = encodeGemini(messages, { model: 'gemini-2.5-pro' });
    expect(body.contents).toEqual([{ role: 'user', parts: [{ text: 'a' }, { text: 'b' }] }]);
  });
});
