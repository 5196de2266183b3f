import type { Message } from '@arbor/domain/messages';
import { encode } from '../providers';
import { PROVIDER_NAMES } from '../types';
import { chain, png, sampleConversation, text } from '../testing/conversation';
import { anthropicImageTokens, imageTokens } from './image-tokens';
import {
  MESSAGE_OVERHEAD_TOKENS,
  estimateBodyTokens,
  estimateMessageTokens,
  estimateToolsTokens,
} from './estimate';
import { countTextTokens } from './text';

const anthropic = { provider: 'anthropic' as const, model: 'claude-sonnet-4-5' };

describe('estimateMessageTokens', () => {
  it('counts text with the tokenizer plus the per-message overhead', () => {
    const [message] = chain([{ role: 'user', content: [text('hello world')] }]);
    expect(estimateMessageTokens(message, anthropic)).toBe(MESSAGE_OVERHEAD_TOKENS + 2);
  });

  it('prices images by formula, not by the length of their base64', () => {
    const [message] = chain([{ role: 'user', content: [png(1000, 1000)] }]);
    expect(estimateMessageTokens(message, anthropic)).toBe(
      MESSAGE_OVERHEAD_TOKENS + anthropicImageTokens({ width: 1000, height: 1000 }),
    );
    expect(estimateMessageTokens(message, { provider: 'openai-chat', model: 'gpt-4o' })).toBe(
      MESSAGE_OVERHEAD_TOKENS + 765,
    );
  });

  it('counts thinking for Anthropic only, never its signature', () => {
    const [message] = chain([
      {
        role: 'assistant',
        content: [{ type: 'thinking', thinking: 'hello world', signature: 'x'.repeat(5000) }],
      },
    ]);
    expect(estimateMessageTokens(message, anthropic)).toBe(MESSAGE_OVERHEAD_TOKENS + 2);
    expect(estimateMessageTokens(message, { provider: 'gemini', model: 'gemini-2.5-pro' })).toBe(
      MESSAGE_OVERHEAD_TOKENS,
    );
  });

  it('counts tool inputs and results', () => {
    const [call, result] = chain([
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'a', name: 'read', input: { p: 1 } }],
      },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'a', content: 'hello world' }],
      },
    ]);
    expect(estimateMessageTokens(call, anthropic)).toBeGreaterThan(MESSAGE_OVERHEAD_TOKENS + 3);
    expect(estimateMessageTokens(result, anthropic)).toBe(MESSAGE_OVERHEAD_TOKENS + 3 + 2);
  });
});

describe('estimateBodyTokens', () => {
  const models = {
    anthropic: 'claude-sonnet-4-5',
    'openai-chat': 'gpt-4o',
    'openai-responses': 'gpt-4o',
    gemini: 'gemini-2.5-pro',
  };

  it.each(PROVIDER_NAMES)('prices %s images by formula', (provider) => {
    const model = models[provider];
    const withImage: Message[] = chain([{ role: 'user', content: [text('hi'), png(1000, 1000)] }]);
    const body = encode(provider, withImage, { model });
    const bodyText = JSON.stringify(body);
    const estimate = estimateBodyTokens(body, { provider, model });
    const picture = imageTokens({ width: 1000, height: 1000 }, provider, model);
    expect(estimate).toBeGreaterThanOrEqual(picture);
    expect(estimate).toBeLessThan(picture + 30);
    // Tokenizing the base64 as text would cost far more than the formula.
    expect(countTextTokens(bodyText)).toBeGreaterThan(estimate);
  });

  it.each(PROVIDER_NAMES)('grows with the text of a %s body', (provider) => {
    const model = models[provider];
    const small = encode(provider, sampleConversation(), { model });
    const longer = encode(
      provider,
      [...sampleConversation(), ...chain([{ role: 'user', content: [text('word '.repeat(500))] }])],
      { model },
    );
    expect(estimateBodyTokens(longer, { provider, model })).toBeGreaterThanOrEqual(
      estimateBodyTokens(small, { provider, model }) + 500,
    );
  });

  it('leaves out Anthropic thinking of finished turns but counts the turn in progress', () => {
    const turn = (thinking: string) =>
      chain([
        { role: 'user', content: [text('q1')] },
        {
          role: 'assistant',
          content: [{ type: 'thinking', thinking, signature: 's' }, text('a1')],
        },
        { role: 'user', content: [text('q2')] },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking, signature: 's' },
            { type: 'tool_use', id: 't', name: 'ls', input: {} },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'ok' }] },
      ]);
    const short = encode('anthropic', turn('x'), { model: 'claude-sonnet-4-5' });
    const long = encode('anthropic', turn('word '.repeat(300)), { model: 'claude-sonnet-4-5' });
    const difference = estimateBodyTokens(long, anthropic) - estimateBodyTokens(short, anthropic);
    // Only the in-progress turn's thinking (≈300 tokens) counts, not both.
    expect(difference).toBeGreaterThanOrEqual(290);
    expect(difference).toBeLessThan(400);
  });

  it('does not bill signatures or model settings', () => {
    const body = encode('anthropic', sampleConversation(), { model: 'claude-sonnet-4-5' });
    const resigned = JSON.parse(JSON.stringify(body).replace('sig-A==', 'S'.repeat(4000)));
    resigned.model = 'another-model-name-that-is-long';
    resigned.max_tokens = 123456;
    expect(estimateBodyTokens(resigned, anthropic)).toBe(estimateBodyTokens(body, anthropic));
  });
});

describe('estimateToolsTokens', () => {
  it('counts each definition as JSON', () => {
    const tools = [{ name: 'read', description: 'Read a file', input_schema: { type: 'object' } }];
    expect(estimateToolsTokens(tools, { model: 'gpt-4o' })).toBe(
      3 + countTextTokens(JSON.stringify(tools[0])),
    );
  });
});
