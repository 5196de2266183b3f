import {
  encodeGemini,
  type GeminiBody,
  type GeminiContent,
  type GeminiPart,
} from '../providers/gemini';
import { sampleConversation } from '../testing/conversation';
import { makePngBase64 } from '../testing/images';
import { checkGemini } from './gemini';
import type { ViolationCode } from './violations';

const body = (...contents: GeminiContent[]): GeminiBody => ({ contents });
const user = (...parts: GeminiPart[]): GeminiContent => ({ role: 'user', parts });
const model = (...parts: GeminiPart[]): GeminiContent => ({ role: 'model', parts });
const call = (name: string, id?: string): GeminiPart => ({
  functionCall: { name, args: {}, ...(id ? { id } : {}) },
});
const response = (name: string, id?: string): GeminiPart => ({
  functionResponse: { name, response: { output: 'ok' }, ...(id ? { id } : {}) },
});
const codes = (b: GeminiBody, options = {}) => checkGemini(b, options).map((v) => v.code);

describe('checkGemini', () => {
  it('passes what the encoder produces', () => {
    expect(
      checkGemini(encodeGemini(sampleConversation('gemini-2.5-pro'), { model: 'gemini-2.5-pro' })),
    ).toEqual([]);
    const v3 = encodeGemini(sampleConversation('claude-sonnet-4-5'), {
      model: 'gemini-3-pro-preview',
    });
    expect(checkGemini(v3, { model: 'gemini-3-pro-preview' })).toEqual([]);
  });

  it('matches responses by name when ids are absent, parallel calls included', () => {
    const b = body(
      user({ text: 'go' }),
      model(call('a'), call('b')),
      user(response('b'), response('a')),
    );
    expect(checkGemini(b)).toEqual([]);
  });

  const cases: [ViolationCode, GeminiBody, object][] = [
    ['no_messages', body(), {}],
    ['first_not_user', body(model({ text: 'hi' })), {}],
    ['role_alternation', body(user({ text: 'a' }), user({ text: 'b' })), {}],
    ['empty_message', body(user()), {}],
    ['empty_content', body(user({ text: '' })), {}],
    ['leading_orphan', body(user(response('f'))), {}],
    [
      'orphan_tool_result',
      body(user({ text: 'go' }), model({ text: 'x' }), user(response('f'))),
      {},
    ],
    [
      'orphan_tool_result',
      body(user({ text: 'go' }), model(call('f', '1')), user(response('f', '2'))),
      {},
    ],
    [
      'unanswered_tool_call',
      body(user({ text: 'go' }), model(call('f'), call('f')), user(response('f'))),
      {},
    ],
    ['unanswered_tool_call', body(user({ text: 'go' }), model(call('f'))), {}],
    [
      'thinking_signature_missing',
      body(user({ text: 'go' }), model(call('f')), user(response('f'))),
      { model: 'gemini-3-flash' },
    ],
  ];

  it.each(cases)('reports %s', (code, bad, options) => {
    expect(codes(bad, options)).toContain(code);
  });

  it('does not require signatures before Gemini 3, and accepts signature-only text parts', () => {
    const b = body(user({ text: 'go' }), model(call('f')), user(response('f')));
    expect(codes(b, { model: 'gemini-2.5-pro' })).toEqual([]);
    const signed = body(
      user({ text: 'go' }),
      model({ text: '', thought: true, thoughtSignature: 's' }),
    );
    expect(codes(signed, { requireThoughtSignatures: true })).toEqual([]);
  });

  it('checks images and request size', () => {
    const b = body(user({ inlineData: { mimeType: 'image/png', data: makePngBase64(3, 3) } }));
    expect(codes(b)).toEqual([]);
    expect(codes(b, { limits: { maxImages: 0 } })).toEqual(['too_many_images']);
    expect(codes(b, { limits: { maxRequestBytes: 20 } })).toEqual(['request_too_large']);
  });
});
