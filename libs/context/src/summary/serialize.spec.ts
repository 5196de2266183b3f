import fc from 'fast-check';
import { chain, png, text } from '../testing/conversation';
import { serializeForSummary, truncateMiddle } from './serialize';

describe('truncateMiddle', () => {
  it('leaves text that fits alone', () => {
    expect(truncateMiddle('short', 10)).toBe('short');
  });

  it('keeps the head and the tail and says how much was left out', () => {
    const out = truncateMiddle(`HEAD${'x'.repeat(1000)}TAIL`, 100);
    expect(out.startsWith('HEAD')).toBe(true);
    expect(out.endsWith('TAIL')).toBe(true);
    expect(out).toContain('[… 908 characters omitted …]');
  });

  it('keeps head + omitted + tail = the original length, and never splits a surrogate pair', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 400 }),
        fc.integer({ min: 2, max: 300 }),
        (s, max) => {
          const out = truncateMiddle(s, max);
          if (s.length <= max) return out === s;
          const match = /^([\s\S]*)\n\[… (\d+) characters omitted …\]\n([\s\S]*)$/.exec(out);
          if (!match) return false;
          const [, head, omitted, tail] = match;
          return (
            s.startsWith(head) &&
            s.endsWith(tail) &&
            head.length + Number(omitted) + tail.length === s.length &&
            head.length + tail.length <= max &&
            !/[\ud800-\udbff]$/.test(head) &&
            !/^[\udc00-\udfff]/.test(tail)
          );
        },
      ),
    );
  });
});

describe('serializeForSummary', () => {
  const messages = chain([
    { role: 'system', content: [text('Never push to main.')] },
    { role: 'user', content: [text('Fix the parser'), png()] },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'Read it first.', signature: 'sig==' },
        { type: 'redacted_thinking', data: 'opaque' },
        text('Reading.'),
        { type: 'tool_use', id: 'c1', name: 'read', input: { path: 'src/parser.ts' } },
        { type: 'tool_use', id: 'c2', name: 'bash', input: { command: 'npm test' } },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'c1', content: [text('export const x = 1;'), png()] },
        { type: 'tool_result', tool_use_id: 'c2', content: 'FAIL', is_error: true },
        { type: 'tool_result', tool_use_id: 'c3', content: '' },
      ],
    },
    { role: 'assistant', content: [{ type: 'redacted_thinking', data: 'only this' }] },
  ]);

  it('writes one segment per readable message with role markers, calls, results and [image]', () => {
    const segments = serializeForSummary(messages);
    expect(segments).toEqual([
      '[system]\nNever push to main.',
      '[user]\nFix the parser\n[image]',
      '[assistant]\n[thinking]\nRead it first.\nReading.\n' +
        '[tool call read id=c1]\n{"path":"src/parser.ts"}\n' +
        '[tool call bash id=c2]\n{"command":"npm test"}',
      '[user]\n[tool result read id=c1]\nexport const x = 1;\n[image]\n' +
        '[tool error bash id=c2]\nFAIL\n' +
        '[tool result unknown tool id=c3]\n(no output)',
    ]);
  });

  it('marks pinned messages', () => {
    const [pinned] = chain([{ role: 'user', content: [text('Always use tabs.')] }]);
    expect(serializeForSummary([{ ...pinned, pinned: true }])).toEqual([
      '[user, pinned]\nAlways use tabs.',
    ]);
  });

  it('truncates huge tool outputs and inputs head+tail, to the limits asked for', () => {
    const output = `first line\n${'log line\n'.repeat(5000)}exit code 1`;
    const [call, result] = serializeForSummary(
      chain([
        {
          role: 'assistant',
          content: [
            { type: 'tool_use', id: 'b', name: 'bash', input: { script: 'y'.repeat(5000) } },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'b', content: output }] },
      ]),
      { toolOutputMaxChars: 1000, toolInputMaxChars: 300 },
    );
    expect(result.length).toBeLessThan(1200);
    expect(result).toContain('first line');
    expect(result).toContain('exit code 1');
    expect(result).toContain('characters omitted');
    expect(call.length).toBeLessThan(450);
  });
});
