import fc from 'fast-check';
import { escapeControl, hasControl } from './terminal';
import { arbHostileText } from './terminal.testing';

describe('escapeControl (every CLI printer)', () => {
  it('leaves no control character a terminal acts on, keeps newline and tab', () => {
    fc.assert(
      fc.property(arbHostileText(), (text) => {
        const out = escapeControl(text);
        expect(hasControl(out)).toBe(false);
        expect(out.split('\n').length).toBe(text.split('\n').length);
        expect(out.split('\t').length).toBe(text.split('\t').length);
      }),
      { numRuns: 500 },
    );
  });

  it('changes nothing in text without them, and names what it escapes', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        if (!hasControl(text)) expect(escapeControl(text)).toBe(text);
      }),
    );
    expect(escapeControl('a\x1b]0;t\x07b\r\u202e\n\t')).toBe(
      'a\\u{1b}]0;t\\u{7}b\\u{d}\\u{202e}\n\t',
    );
  });
});
