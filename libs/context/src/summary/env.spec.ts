import { summaryConfigFromEnv } from './env';

describe('summaryConfigFromEnv', () => {
  it('reads the four ARBOR_SUMMARY_* variables, trimmed', () => {
    expect(
      summaryConfigFromEnv({
        ARBOR_SUMMARY_PROVIDER: 'openai-chat',
        ARBOR_SUMMARY_BASE_URL: ' http://127.0.0.1:8000/v1 ',
        ARBOR_SUMMARY_API_KEY: 'sk-x',
        ARBOR_SUMMARY_MODEL: 'gpt-4o-mini',
      }),
    ).toEqual({
      provider: 'openai-chat',
      baseUrl: 'http://127.0.0.1:8000/v1',
      apiKey: 'sk-x',
      model: 'gpt-4o-mini',
    });
  });

  it('defaults the provider to anthropic and leaves unset (or blank) values out', () => {
    expect(summaryConfigFromEnv({ ARBOR_SUMMARY_API_KEY: '', ARBOR_SUMMARY_MODEL: '  ' })).toEqual({
      provider: 'anthropic',
    });
  });

  it('refuses an unknown provider instead of silently disabling the rung', () => {
    expect(() => summaryConfigFromEnv({ ARBOR_SUMMARY_PROVIDER: 'openai' })).toThrow(
      /ARBOR_SUMMARY_PROVIDER must be one of anthropic, openai-chat/,
    );
  });
});
