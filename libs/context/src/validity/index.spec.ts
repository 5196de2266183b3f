import { encode } from '../providers';
import { sampleConversation } from '../testing/conversation';
import { assertValid, checkBody, ContextValidityError } from './index';

describe('assertValid', () => {
  it('returns a valid body unchanged', () => {
    const body = encode('openai-chat', sampleConversation('gpt-4o'), { model: 'gpt-4o' });
    expect(assertValid('openai-chat', body)).toBe(body);
  });

  it('throws a ContextValidityError listing the violations', () => {
    const body = encode('anthropic', sampleConversation(), { model: 'claude-sonnet-4-5' });
    body.messages.splice(2, 1); // drop the tool results of the parallel calls
    expect(checkBody('anthropic', body).map((v) => v.code)).toContain('unanswered_tool_call');
    let error: unknown;
    try {
      assertValid('anthropic', body);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ContextValidityError);
    const typed = error as ContextValidityError;
    expect(typed.provider).toBe('anthropic');
    expect(typed.violations.map((v) => v.code)).toContain('unanswered_tool_call');
    expect(typed.message).toMatch(/unanswered_tool_call at messages\[1\]\.content\[2\]/);
  });
});
