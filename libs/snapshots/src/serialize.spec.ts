import fc from 'fast-check';
import type { Message } from '@arbor/domain/messages';
import {
  collapseRuns,
  normalizeText,
  serializeMessage,
  serializeMessages,
  toolNames,
  truncateMiddle,
} from './serialize';
import { pngHeader } from '@arbor/domain/testing/images';

type M = Pick<Message, 'role' | 'content'>;

// Signature + a valid IHDR (CRC included) is all the header reader needs.
const pngBase64 = (width: number, height: number): string =>
  pngHeader(width, height).toString('base64');

describe('serializeMessages', () => {
  const conversation: M[] = [
    { role: 'user', content: [{ type: 'text', text: 'read the file' }] },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'let me think', signature: 'sig' },
        { type: 'text', text: 'Reading.' },
        { type: 'tool_use', id: 'toolu_1', name: 'read', input: { path: 'a.md', lines: [1, 2] } },
      ],
    },
    {
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'toolu_1',
          content: [
            { type: 'text', text: '# Title' },
            {
              type: 'image',
              source: { type: 'base64', media_type: 'image/png', data: pngBase64(640, 480) },
            },
          ],
        },
      ],
    },
    {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_2', content: 'boom', is_error: true }],
    },
  ];

  it('writes role and block markers, compact JSON inputs and image placeholders', () => {
    expect(serializeMessages(conversation)).toBe(
      [
        '[user] read the file',
        '[assistant] [thinking: 12 chars]',
        'Reading.',
        '[tool_use read] {"path":"a.md","lines":[1,2]}',
        '[user] [tool_result read] # Title',
        '[image: image/png, 640x480]',
        '[user] [tool_result error] boom',
      ].join('\n'),
    );
  });

  it('writes tool call ids only when asked (toolIds: full)', () => {
    const text = serializeMessages(conversation, { toolIds: 'full' });
    expect(text).toContain('[tool_use read toolu_1] {"path"');
    expect(text).toContain('[user] [tool_result toolu_1] # Title');
    expect(text).toContain('[user] [tool_result toolu_2 error] boom');
    expect(serializeMessages(conversation)).not.toMatch(/toolu_/);
  });

  it('omits or includes thinking on request', () => {
    const m = conversation[1];
    expect(serializeMessage(m, { thinking: 'omit' })).not.toContain('thinking');
    expect(serializeMessage(m, { thinking: 'include' })).toContain('[thinking] let me think');
  });

  it('writes ?x? for an image whose header it cannot read', () => {
    const m: M = {
      role: 'user',
      content: [
        { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: 'AAAA' } },
      ],
    };
    expect(serializeMessage(m)).toBe('[user] [image: image/jpeg, ?x?]');
  });

  it('truncates long tool outputs head + tail with the elided count', () => {
    const output = 'H'.repeat(100) + 'M'.repeat(1000) + 'T'.repeat(50);
    const m: M = {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'x', content: output }],
    };
    const text = serializeMessage(m, { toolOutput: { head: 100, tail: 50 } });
    expect(text).toBe(
      `[user] [tool_result] ${'H'.repeat(100)}\n… [1000 chars elided] …\n${'T'.repeat(50)}`,
    );
  });

  it('truncates long tool inputs with their own limits', () => {
    const m: M = {
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'i', name: 'write', input: { content: 'z'.repeat(500) } }],
    };
    const text = serializeMessage(m, { toolInput: { head: 20, tail: 10 } });
    expect(text).toContain('chars elided');
    expect(text.startsWith('[assistant] [tool_use write] {"content":"zzz')).toBe(true);
    expect(text.endsWith('zzzz"}')).toBe(true);
  });

  it('is additive: a run is its messages joined by a line break (with the run’s tool names)', () => {
    const names = toolNames(conversation);
    expect(serializeMessages(conversation)).toBe(
      conversation.map((m) => serializeMessage(m, {}, names)).join('\n'),
    );
  });

  it('is deterministic', () => {
    expect(serializeMessages(conversation)).toBe(serializeMessages(structuredClone(conversation)));
  });
});

describe('truncateMiddle', () => {
  it('keeps text that fits, and otherwise exactly head + marker + tail', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), fc.nat(100), fc.nat(100), (text, head, tail) => {
        const out = truncateMiddle(text, { head, tail });
        if (text.length <= head + tail) {
          expect(out).toBe(text);
          return;
        }
        const match = /^([\s\S]*)\n… \[(\d+) chars elided\] …\n([\s\S]*)$/.exec(out);
        expect(match).not.toBeNull();
        const [, h, n, t] = match as RegExpExecArray;
        expect(text.startsWith(h)).toBe(true);
        expect(text.endsWith(t)).toBe(true);
        expect(h.length + Number(n) + t.length).toBe(text.length);
      }),
    );
  });

  it('never splits a surrogate pair', () => {
    const out = truncateMiddle('😀😀😀😀', { head: 3, tail: 3 });
    expect(out).toBe('😀\n… [4 chars elided] …\n😀');
  });
});

describe('text normalization', () => {
  it('writes control characters in caret notation, tabs as spaces, CRLF as LF', () => {
    expect(normalizeText('a\tb\r\nc\u001b[0m\u007f', 2)).toBe('a  b\nc^[[0m^?');
  });

  it('collapses long runs of one punctuation character, and only those', () => {
    expect(collapseRuns(`// ${'='.repeat(76)}`, 8)).toBe('// [=×76]');
    expect(collapseRuns('=======', 8)).toBe('=======');
    expect(collapseRuns('aaaaaaaaaa', 8)).toBe('aaaaaaaaaa');
    expect(collapseRuns('----------', 0)).toBe('----------');
  });
});
