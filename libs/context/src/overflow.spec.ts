import { parseOverflowError } from './overflow';

describe('parseOverflowError', () => {
  // Real error texts, as reported in public issue trackers.
  it.each([
    [
      'Anthropic, bare message',
      'prompt is too long: 200251 tokens > 200000 maximum',
      200251,
      200000,
      'anthropic',
    ],
    [
      'Anthropic, SDK error with JSON body (earendil-works/pi#102)',
      'Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 219898 tokens > 200000 maximum"},"request_id":"req_011CVjxiYzEFcAQC4Fk87zw2"}',
      219898,
      200000,
      'anthropic',
    ],
    [
      'Anthropic through a gateway log line (boldsoftware/exe.dev#62)',
      'LLM request failed: status 400 Bad Request (url=http://169.254.169.254/gateway/llm/_/gateway/anthropic/v1/messages, model=claude-opus-4-5-20251101): {"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 200251 tokens > 200000 maximum"},"request_id":"req_011CWdepJvA2D819tdYYq4h7"}',
      200251,
      200000,
      'anthropic',
    ],
    [
      'Anthropic on Bedrock (daisuke-awaji/moca#254)',
      'The model returned the following errors: prompt is too long: 200049 tokens > 200000 maximum',
      200049,
      200000,
      'anthropic',
    ],
    [
      'Anthropic, input plus max_tokens',
      'input length and `max_tokens` exceed context limit: 188240 + 21333 > 200000, decrease input length or `max_tokens` and try again',
      188240,
      200000 - 21333,
      'anthropic',
    ],
    [
      'OpenAI context_length_exceeded JSON (ChatGPTNextWeb/NextChat#625)',
      '{"error":{"message":"This model\'s maximum context length is 4097 tokens. However, your messages resulted in 4619 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}',
      4619,
      4097,
      'openai',
    ],
    [
      'OpenAI, Python SDK repr (crewAIInc/crewAI-examples#121)',
      "openai.BadRequestError: Error code: 400 - {'error': {'message': \"This model's maximum context length is 8192 tokens. However, your messages resulted in 8227 tokens. Please reduce the length of the messages.\", 'type': 'invalid_request_error', 'param': 'messages', 'code': 'context_length_exceeded'}}",
      8227,
      8192,
      'openai',
    ],
    [
      'OpenAI, 128k window',
      "This model's maximum context length is 128000 tokens. However, your messages resulted in 130532 tokens. Please reduce the length of the messages.",
      130532,
      128000,
      'openai',
    ],
    [
      'OpenAI, messages and completion (Chanzhaoyu/chatgpt-web#354)',
      "This model's maximum context length is 4096 tokens. However, you requested 4130 tokens (3130 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.",
      3130,
      3096,
      'openai',
    ],
    [
      'OpenAI gpt-5 configured limit (cline/cline#5474)',
      '400 Input tokens exceed the configured limit of 272000 tokens. Your messages resulted in 289650 tokens. Please reduce the length of the messages.',
      289650,
      272000,
      'openai',
    ],
    [
      'Gemini JSON array (google-gemini/gemini-cli#6678)',
      '[{\n    "error": {\n      "code": 400,\n      "message": "The input token count (1200293) exceeds the maximum number of tokens allowed (1048576).",\n      "errors": [\n        {\n          "message": "The input token count (1200293) exceeds the maximum number of tokens allowed (1048576).",\n          "domain": "global",\n          "reason": "badRequest"\n        }\n      ],\n      "status": "INVALID_ARGUMENT"\n    }\n  }\n  ]',
      1200293,
      1048576,
      'gemini',
    ],
    [
      'Gemini JSON inside a JSON string (google-gemini/gemini-cli#4231)',
      '[API Error: {"error":{"message":"{\\n  \\"error\\": {\\n    \\"code\\": 400,\\n    \\"message\\": \\"The input token count (3475108) exceeds the maximum number of tokens allowed (1048576).\\",\\n    \\"status\\": \\"INVALID_ARGUMENT\\"\\n  }\\n}\\n","code":400,"status":"Bad Request"}}]',
      3475108,
      1048576,
      'gemini',
    ],
    [
      'Gemini behind a CLI prefix (google-gemini/gemini-cli#4118)',
      '[API Error: got status: INVALID_ARGUMENT. {"error":{"code":400,"message":"The input token count (132478) exceeds the maximum number of tokens allowed (131072).","status":"INVALID_ARGUMENT"}}]',
      132478,
      131072,
      'gemini',
    ],
  ])('%s', (_name, raw, measuredTokens, limitTokens, provider) => {
    expect(parseOverflowError(raw)).toEqual({ measuredTokens, limitTokens, provider });
  });

  it.each([
    ['no numbers', 'prompt is too long'],
    [
      'OpenAI Responses without numbers',
      'Your input exceeds the context window of this model. Please adjust your input and try again.',
    ],
    ['trailing text after the anchored phrase', 'prompt is too long: 5 tokens > 4 maximum. Retry?'],
    [
      'leading text that is not a known wrapper',
      'Claude said: prompt is too long: 5 tokens > 4 maximum',
    ],
    ['thousands separators', 'prompt is too long: 200,251 tokens > 200,000 maximum'],
    [
      'a rate limit, not a window',
      'Request too large for gpt-4o in organization org-abc on tokens per min (TPM): Limit 30000, Requested 31000.',
    ],
    [
      'an output limit, not an input overflow',
      'max_tokens: 300000 > 64000, which is the maximum allowed number of output tokens for claude-sonnet-4-5',
    ],
    [
      'Gemini output count',
      'The output token count (1200000) exceeds the maximum number of tokens allowed (1048576).',
    ],
    ['a different casing', 'PROMPT IS TOO LONG: 200251 TOKENS > 200000 MAXIMUM'],
    ['a zero limit', 'prompt is too long: 10 tokens > 0 maximum'],
    ['empty', ''],
    ['JSON without a known message', '{"error":{"message":"overloaded_error"}}'],
  ])('does not parse %s', (_name, raw) => {
    expect(parseOverflowError(raw)).toBeNull();
  });
});
