import { encodeAnthropic, type AnthropicBody } from '../providers/anthropic';
import { makePngBase64 } from '../testing/images';
import { sampleConversation } from '../testing/conversation';
import { checkAnthropic } from './anthropic';
import type { ViolationCode } from './violations';

const valid = (): AnthropicBody =>
  encodeAnthropic(sampleConversation(), { model: 'claude-sonnet-4-5' });

const codes = (body: AnthropicBody, limits = {}) =>
  checkAnthropic(body, { limits }).map((v) => v.code);

const image = (data = makePngBase64(2, 2)) =>
  ({ type: 'image', source: { type: 'base64', media_type: 'image/png', data } }) as const;

const user = (...content: AnthropicBody['messages'][number]['content']) =>
  ({ role: 'user', content }) as AnthropicBody['messages'][number];
const assistant = (...content: AnthropicBody['messages'][number]['content']) =>
  ({ role: 'assistant', content }) as AnthropicBody['messages'][number];
const body = (...messages: AnthropicBody['messages']): AnthropicBody => ({
  model: 'claude-sonnet-4-5',
  max_tokens: 10,
  messages,
});
const call = (id: string) => ({ type: 'tool_use', id, name: 'f', input: {} }) as const;
const result = (id: string) => ({ type: 'tool_result', tool_use_id: id, content: 'ok' }) as const;
const say = (text: string) => ({ type: 'text', text }) as const;

describe('checkAnthropic', () => {
  it('passes what the encoder produces', () => {
    expect(checkAnthropic(valid())).toEqual([]);
  });

  const cases: [ViolationCode, AnthropicBody][] = [
    ['no_messages', body()],
    ['first_not_user', body(assistant(say('hi')), user(say('yo')))],
    ['role_alternation', body(user(say('a')), user(say('b')))],
    ['empty_message', body(user())],
    ['empty_content', body(user(say('  ')))],
    ['leading_orphan', body(user(result('x'), say('go')))],
    ['orphan_tool_result', body(user(say('go')), assistant(say('ok')), user(result('x')))],
    ['unanswered_tool_call', body(user(say('go')), assistant(call('a')), user(say('next')))],
    [
      'duplicate_tool_call_id',
      body(
        user(say('go')),
        assistant(call('a')),
        user(result('a')),
        assistant(call('a')),
        user(result('a')),
      ),
    ],
    [
      'tool_result_after_text',
      body(user(say('go')), assistant(call('a')), user(say('x'), result('a'))),
    ],
    [
      'thinking_signature_missing',
      body(
        user(say('go')),
        assistant({ type: 'thinking', thinking: 't', signature: '' }, say('a')),
      ),
    ],
    [
      'thinking_not_first',
      body(
        user(say('go')),
        assistant(say('a'), { type: 'thinking', thinking: 't', signature: 's' }, call('c')),
        user(result('c')),
      ),
    ],
  ];

  it.each(cases)('reports %s', (code, bad) => {
    expect(codes(bad)).toContain(code);
  });

  it('reports a second result for one call', () => {
    const bad = body(user(say('go')), assistant(call('a')), user(result('a'), result('a')));
    expect(checkAnthropic(bad)).toEqual([
      expect.objectContaining({ code: 'orphan_tool_result', path: 'messages[2].content[1]' }),
    ]);
  });

  it('points at the offending block', () => {
    const bad = body(user(say('go')), assistant(say('x'), call('a'), call('b')), user(result('b')));
    expect(checkAnthropic(bad)).toEqual([
      {
        code: 'unanswered_tool_call',
        path: 'messages[1].content[1]',
        message: 'tool_use a has no tool_result in the next message',
      },
    ]);
  });

  it('checks image count, bytes and sides against the limits, including in tool results', () => {
    const many = body(user(say('look'), image(), image(), image()));
    expect(codes(many, { maxImages: 2 })).toEqual(['too_many_images']);
    expect(codes(many)).toEqual([]);

    const nested = body(
      user(say('go')),
      assistant(call('a')),
      user({ type: 'tool_result', tool_use_id: 'a', content: [image('A'.repeat(200))] }),
    );
    expect(checkAnthropic(nested, { limits: { maxImageBytes: 100 } })).toEqual([
      expect.objectContaining({
        code: 'image_too_large',
        path: 'messages[2].content[0].content[0]',
      }),
    ]);

    const wide = body(user(image(makePngBase64(2100, 10))));
    expect(codes(wide)).toEqual([]);
    expect(codes(wide, { maxImageSide: 2000 })).toEqual(['image_dimensions_too_large']);
    const crowd = body(
      user(...Array.from({ length: 20 }, () => image()), image(makePngBase64(2100, 10))),
    );
    expect(codes(crowd)).toEqual(['image_dimensions_too_large']);
  });

  it('checks the request size', () => {
    expect(codes(valid(), { maxRequestBytes: 100 })).toEqual(['request_too_large']);
  });
});
