import { encodeOpenAIChat, type ChatMessage, type OpenAIChatBody } from '../providers/openai-chat';
import { sampleConversation } from '../testing/conversation';
import { makePngBase64 } from '../testing/images';
import { checkOpenAIChat } from './openai-chat';
import type { ViolationCode } from './violations';

const body = (...messages: ChatMessage[]): OpenAIChatBody => ({ model: 'gpt-4o', messages });
const call = (...ids: string[]): ChatMessage => ({
  role: 'assistant',
  content: null,
  tool_calls: ids.map((id) => ({ id, type: 'function', function: { name: 'f', arguments: '{}' } })),
});
const tool = (id: string, content = 'ok'): ChatMessage => ({
  role: 'tool',
  tool_call_id: id,
  content,
});
const user = (content: string): ChatMessage => ({ role: 'user', content });
const codes = (b: OpenAIChatBody, limits = {}) => checkOpenAIChat(b, { limits }).map((v) => v.code);

describe('checkOpenAIChat', () => {
  it('passes what the encoder produces, parallel calls and tool images included', () => {
    expect(
      checkOpenAIChat(encodeOpenAIChat(sampleConversation('gpt-4o'), { model: 'gpt-4o' })),
    ).toEqual([]);
  });

  it('accepts parallel results in any order', () => {
    expect(checkOpenAIChat(body(user('go'), call('a', 'b'), tool('b'), tool('a')))).toEqual([]);
  });

  const cases: [ViolationCode, OpenAIChatBody][] = [
    ['no_messages', body()],
    ['empty_message', body(user(' '))],
    ['empty_message', body(user('go'), { role: 'assistant', content: null })],
    ['empty_content', body(user('go'), call('a'), tool('a', ''))],
    ['empty_content', body({ role: 'user', content: [{ type: 'text', text: '' }] })],
    ['leading_orphan', body({ role: 'system', content: 's' }, tool('a'), user('go'))],
    ['orphan_tool_result', body(user('go'), call('a'), tool('a'), user('more'), tool('a'))],
    ['orphan_tool_result', body(user('go'), call('a'), tool('a'), tool('a'))],
    ['unanswered_tool_call', body(user('go'), call('a', 'b'), tool('a'), user('next'))],
    // The answer must come right after the call, not later.
    ['unanswered_tool_call', body(user('go'), call('a'), user('wait'), tool('a'))],
    ['duplicate_tool_call_id', body(user('go'), call('a'), tool('a'), call('a'), tool('a'))],
    [
      'invalid_tool_arguments',
      body(
        user('go'),
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: '{oops' } }],
        },
        tool('a'),
      ),
    ],
  ];

  it.each(cases)('reports %s', (code, bad) => {
    expect(codes(bad)).toContain(code);
  });

  it('checks images in user content against the limits', () => {
    const url = `data:image/png;base64,${makePngBase64(3, 3)}`;
    const withImages = body({
      role: 'user',
      content: [
        { type: 'image_url', image_url: { url } },
        { type: 'image_url', image_url: { url } },
        { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
      ],
    });
    expect(codes(withImages)).toEqual([]);
    expect(codes(withImages, { maxImages: 1 })).toEqual(['too_many_images']);
    expect(codes(withImages, { maxImageBytes: 10 })).toEqual([
      'image_too_large',
      'image_too_large',
    ]);
    expect(codes(withImages, { maxTotalImageBytes: 100 })).toEqual(['images_total_too_large']);
  });
});
