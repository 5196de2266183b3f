import {
  encodeOpenAIResponses,
  type OpenAIResponsesBody,
  type ResponsesItem,
} from '../providers/openai-responses';
import { sampleConversation } from '../testing/conversation';
import { makePngBase64 } from '../testing/images';
import { checkOpenAIResponses } from './openai-responses';
import type { ViolationCode } from './violations';

const body = (...input: ResponsesItem[]): OpenAIResponsesBody => ({ model: 'gpt-4.1', input });
const user = (text: string): ResponsesItem => ({
  type: 'message',
  role: 'user',
  content: [{ type: 'input_text', text }],
});
const call = (id: string, args = '{}'): ResponsesItem => ({
  type: 'function_call',
  call_id: id,
  name: 'f',
  arguments: args,
});
const output = (id: string, text = 'ok'): ResponsesItem => ({
  type: 'function_call_output',
  call_id: id,
  output: text,
});
const assistantSays = (text: string): ResponsesItem => ({
  type: 'message',
  role: 'assistant',
  content: [{ type: 'output_text', text }],
});
const codes = (b: OpenAIResponsesBody, limits = {}) =>
  checkOpenAIResponses(b, { limits }).map((v) => v.code);

describe('checkOpenAIResponses', () => {
  it('passes what the encoder produces', () => {
    const encoded = encodeOpenAIResponses(sampleConversation('gpt-4.1'), { model: 'gpt-4.1' });
    expect(checkOpenAIResponses(encoded)).toEqual([]);
  });

  it('accepts assistant text around the calls of one response', () => {
    const b = body(
      user('go'),
      assistantSays('a'),
      call('a'),
      assistantSays('b'),
      call('b'),
      output('a'),
      output('b'),
      user('next'),
    );
    expect(checkOpenAIResponses(b)).toEqual([]);
  });

  it('accepts parallel calls answered after all the calls', () => {
    expect(
      checkOpenAIResponses(body(user('go'), call('a'), call('b'), output('b'), output('a'))),
    ).toEqual([]);
  });

  const cases: [ViolationCode, OpenAIResponsesBody][] = [
    ['no_messages', body()],
    ['empty_message', body({ type: 'message', role: 'user', content: [] })],
    ['empty_content', body(user(''))],
    ['empty_content', body(user('go'), call('a'), output('a', ' '))],
    ['leading_orphan', body(output('a'), user('go'))],
    ['orphan_tool_result', body(user('go'), output('a'))],
    ['orphan_tool_result', body(user('go'), call('a'), output('a'), output('a'))],
    ['unanswered_tool_call', body(user('go'), call('a'), user('next'), output('a'))],
    ['unanswered_tool_call', body(user('go'), call('a'))],
    // Another model response before the output: the call was not answered right after it.
    [
      'unanswered_tool_call',
      body(user('go'), call('a'), call('b'), output('b'), assistantSays('x'), output('a')),
    ],
    ['leading_orphan', body({ type: 'message', role: 'system', content: [] }, output('a'))],
    ['duplicate_tool_call_id', body(user('go'), call('a'), output('a'), call('a'), output('a'))],
    ['invalid_tool_arguments', body(user('go'), call('a', '[1]'), output('a'))],
  ];

  it.each(cases)('reports %s', (code, bad) => {
    expect(codes(bad)).toContain(code);
  });

  it('checks images in messages and function outputs', () => {
    const image = {
      type: 'input_image',
      image_url: `data:image/png;base64,${makePngBase64(3, 3)}`,
      detail: 'auto',
    } as const;
    const b = body(
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'go' }, image] },
      call('a'),
      { type: 'function_call_output', call_id: 'a', output: [image] },
    );
    expect(codes(b)).toEqual([]);
    expect(checkOpenAIResponses(b, { limits: { maxImages: 1 } })).toEqual([
      expect.objectContaining({ code: 'too_many_images', path: 'input[2].output[0]' }),
    ]);
  });
});
