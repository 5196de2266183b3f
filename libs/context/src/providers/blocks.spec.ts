/**
 * The extended message model in the bodies: reasoning items and opaque provider blocks go only
 * to the provider and model family that made them, a provider-side compaction replaces what is
 * before it (not sent, not counted), images by URL / file id pass where the target takes them
 * and are refused where it does not, tool results carry their name to Gemini, and clientData
 * never reaches a body.
 */
import type { Block, Message } from '@arbor/domain/messages';
import { assembleContext } from '../ladder';
import { baseInput } from '../ladder/testing/builders';
import type { ProviderName } from '../types';
import { encode } from './index';
import { cutAtProviderCompaction, modelFamily, UnsupportedImageSourceError } from './shared';

let n = 0;
const msg = (role: Message['role'], content: Block[], extra: Partial<Message> = {}): Message => ({
  id: `m${++n}`,
  parentId: null,
  role,
  content,
  turnId: 't',
  createdAt: '2026-01-01T00:00:00.000Z',
  ...extra,
});
const text = (t: string): Block => ({ type: 'text', text: t });
const PROVIDERS: ProviderName[] = ['anthropic', 'openai-chat', 'openai-responses', 'gemini'];
const MODEL: Record<ProviderName, string> = {
  anthropic: 'claude-opus-4-5',
  'openai-chat': 'gpt-5',
  'openai-responses': 'gpt-5',
  gemini: 'gemini-2.5-pro',
};
const body = (provider: ProviderName, messages: Message[], model = MODEL[provider]) =>
  JSON.stringify(encode(provider, messages, { model }));

describe('clientData', () => {
  it('is never sent to a model, on any block or message, for any provider', () => {
    const secret = { marker: 'CLIENT-DATA-MARKER', nested: { status: 'completed' } };
    const messages = [
      msg('system', [{ type: 'text', text: 'be brief', clientData: secret }], {
        clientData: secret,
      }),
      msg('user', [{ type: 'text', text: 'hi', clientData: secret }], { clientData: secret }),
      msg(
        'assistant',
        [
          { type: 'thinking', thinking: 'hm', signature: 'sig', clientData: secret },
          { type: 'text', text: 'calling', clientData: secret },
          { type: 'tool_use', id: 'c1', name: 'ls', input: {}, clientData: secret },
        ],
        { model: 'claude-opus-4-5', clientData: secret },
      ),
      msg('user', [
        {
          type: 'tool_result',
          tool_use_id: 'c1',
          name: 'ls',
          content: [{ type: 'text', text: 'a.ts', clientData: secret }],
          clientData: secret,
        },
      ]),
    ];
    for (const provider of PROVIDERS) {
      const json = body(provider, messages);
      expect({ provider, leaked: json.includes('CLIENT-DATA-MARKER') }).toEqual({
        provider,
        leaked: false,
      });
      expect(json).not.toContain('clientData');
    }
  });
});

describe('reasoning blocks', () => {
  const reasoning: Block = {
    type: 'reasoning',
    id: 'rs_1',
    summary: [{ type: 'summary_text', text: 'plan' }],
    encrypted_content: 'ENC-REASONING',
  };
  const history = (model: string) => [
    msg('user', [text('q')]),
    msg('assistant', [reasoning, { type: 'tool_use', id: 'c1', name: 'ls', input: {} }], { model }),
    msg('user', [{ type: 'tool_result', tool_use_id: 'c1', content: 'x' }]),
  ];

  it('goes back to the Responses API in its place, byte-exact, for the same model family', () => {
    const encoded = encode('openai-responses', history('gpt-5-2025-08-07'), { model: 'gpt-5.1' });
    expect(encoded.input.slice(1, 3)).toEqual([
      {
        type: 'reasoning',
        id: 'rs_1',
        summary: [{ type: 'summary_text', text: 'plan' }],
        encrypted_content: 'ENC-REASONING',
      },
      { type: 'function_call', call_id: 'c1', name: 'ls', arguments: '{}' },
    ]);
  });

  it('is dropped for another family, another provider, and every other format', () => {
    expect(body('openai-responses', history('o3'), 'gpt-5')).not.toContain('ENC-REASONING');
    expect(body('openai-responses', history('claude-opus-4-5'), 'gpt-5')).not.toContain('rs_1');
    for (const provider of ['anthropic', 'openai-chat', 'gemini'] as const) {
      expect(body(provider, history('gpt-5'))).not.toContain('ENC-REASONING');
    }
  });

  it('model families', () => {
    expect(modelFamily('claude-opus-4-5-20251101')).toBe('claude-opus-4');
    expect(modelFamily('gpt-5.1-codex')).toBe('gpt-5');
    expect(modelFamily('o4-mini')).toBe('o4');
    expect(modelFamily('openai/gpt-5-mini')).toBe('gpt-5');
  });
});

describe('opaque provider blocks', () => {
  const anthropicCompaction: Block = {
    type: 'provider',
    provider: 'anthropic',
    item: { type: 'compaction', content: 'SUMMARY-OF-EARLIER', encrypted_content: null },
  };
  const openaiCompaction: Block = {
    type: 'provider',
    provider: 'openai',
    item: { type: 'compaction', id: 'cmp_1', encrypted_content: 'ENC-COMPACTION' },
  };
  const history = (block: Block, model: string) => [
    msg('system', [text('SYSTEM-PROMPT')]),
    msg('user', [text('OLD-QUESTION ' + 'old words '.repeat(400))]),
    msg('assistant', [text('OLD-ANSWER ' + 'old words '.repeat(400))], { model }),
    msg('user', [text('second')]),
    msg('assistant', [block, text('NEW-ANSWER')], { model }),
    msg('user', [text('NEXT-QUESTION')]),
  ];

  it('anthropic: sent byte for byte to the same family; what it replaces is not sent', () => {
    const messages = history(anthropicCompaction, 'claude-opus-4-5');
    const cut = cutAtProviderCompaction(messages, 'anthropic', 'claude-opus-4-6');
    const json = body('anthropic', [...cut], 'claude-opus-4-6');
    expect(json).toContain(
      '{"type":"compaction","content":"SUMMARY-OF-EARLIER","encrypted_content":null}',
    );
    expect(json).toContain('SYSTEM-PROMPT');
    expect(json).not.toContain('OLD-QUESTION');
    expect(json).not.toContain('OLD-ANSWER');
    expect(json).toContain('NEXT-QUESTION');
    // Another provider, or another Claude family, gets the full history and no block.
    for (const [provider, model] of [
      ['openai-responses', 'gpt-5'],
      ['anthropic', 'claude-sonnet-4-5'],
    ] as const) {
      const full = cutAtProviderCompaction(messages, provider, model);
      expect(full).toBe(messages);
      const other = body(provider, [...full], model);
      expect(other).toContain('OLD-QUESTION');
      expect(other).not.toContain('SUMMARY-OF-EARLIER');
    }
  });

  it('openai: the compaction item is sent as stored, only to the Responses API', () => {
    const messages = history(openaiCompaction, 'gpt-5');
    const cut = cutAtProviderCompaction(messages, 'openai-responses', 'gpt-5');
    const json = body('openai-responses', [...cut]);
    expect(json).toContain(
      '{"type":"compaction","id":"cmp_1","encrypted_content":"ENC-COMPACTION"}',
    );
    expect(json).not.toContain('OLD-QUESTION');
    for (const provider of ['anthropic', 'openai-chat', 'gemini'] as const)
      expect(body(provider, messages)).not.toContain('ENC-COMPACTION');
  });

  it('the ladder neither sends nor counts what a compaction replaces', async () => {
    const model = 'claude-opus-4-5';
    const withBlock = history(anthropicCompaction, model);
    const plain = history(text('NO-COMPACTION'), model);
    const a = await assembleContext(baseInput(withBlock, { model, budgetTokens: 100_000 }));
    const b = await assembleContext(baseInput(plain, { model, budgetTokens: 100_000 }));
    expect(JSON.stringify(a.body)).not.toContain('OLD-QUESTION');
    expect(JSON.stringify(b.body)).toContain('OLD-QUESTION');
    // ~800 words of old turns are gone from the estimate.
    expect(b.receipt.estimatedTokens - a.receipt.estimatedTokens).toBeGreaterThan(500);
  });
});

describe('image sources', () => {
  const url: Block = { type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } };
  const openaiFile: Block = {
    type: 'image',
    source: { type: 'file', provider: 'openai', file_id: 'file-1' },
  };
  const anthropicFile: Block = {
    type: 'image',
    source: { type: 'file', provider: 'anthropic', file_id: 'file_011' },
  };
  const geminiFile: Block = {
    type: 'image',
    source: { type: 'file', provider: 'gemini', file_id: 'files/abc', media_type: 'image/png' },
  };
  const one = (block: Block) => [msg('user', [text('look'), block])];

  it('pass through where the target takes them', () => {
    expect(
      encode('anthropic', one(url), { model: 'claude-opus-4-5' }).messages[0].content[1],
    ).toEqual({
      type: 'image',
      source: { type: 'url', url: 'https://example.com/a.png' },
    });
    expect(
      encode('anthropic', one(anthropicFile), { model: 'claude-opus-4-5' }).messages[0].content[1],
    ).toEqual({ type: 'image', source: { type: 'file', file_id: 'file_011' } });
    expect(body('openai-chat', one(url))).toContain(
      '{"type":"image_url","image_url":{"url":"https://example.com/a.png"}}',
    );
    expect(body('openai-responses', one(url))).toContain(
      '{"type":"input_image","image_url":"https://example.com/a.png","detail":"auto"}',
    );
    expect(body('openai-responses', one(openaiFile))).toContain(
      '{"type":"input_image","file_id":"file-1","detail":"auto"}',
    );
    expect(body('gemini', one(geminiFile))).toContain(
      '{"fileData":{"mimeType":"image/png","fileUri":"files/abc"}}',
    );
  });

  it('are refused with unsupported_image_source where it does not', async () => {
    const refused: [ProviderName, Block][] = [
      ['gemini', url],
      ['openai-chat', openaiFile],
      ['anthropic', openaiFile],
      ['openai-responses', anthropicFile],
      ['anthropic', geminiFile],
    ];
    for (const [provider, block] of refused) {
      const messages = one(block);
      await expect(
        assembleContext(baseInput(messages, { provider, model: MODEL[provider] })),
      ).rejects.toMatchObject({
        code: 'unsupported_image_source',
        provider,
        messageId: messages[0].id,
        path: 'content[1].source',
      });
      expect(() => encode(provider, messages, { model: MODEL[provider] })).toThrow(
        UnsupportedImageSourceError,
      );
    }
  });
});

describe('tool result names', () => {
  it('name the Gemini functionResponse when its call is not in the body', () => {
    const messages = [
      msg('user', [text('go')]),
      msg('user', [{ type: 'tool_result', tool_use_id: 'c9', name: 'read_file', content: 'ok' }]),
    ];
    expect(body('gemini', messages)).toContain('"name":"read_file"');
    // …and never change what the other formats send.
    const without = [
      messages[0],
      msg('user', [{ type: 'tool_result', tool_use_id: 'c9', content: 'ok' }]),
    ];
    for (const provider of ['anthropic', 'openai-chat', 'openai-responses'] as const)
      expect(body(provider, messages)).toBe(body(provider, without));
  });
});
