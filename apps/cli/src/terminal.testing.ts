/** Generators of what a hostile imported text holds (tests only). */
import fc from 'fast-check';

/** One control character of every kind a terminal acts on: C0, DEL, C1, bidi. */
export const arbControlChar = (): fc.Arbitrary<string> =>
  fc
    .oneof(
      fc.integer({ min: 0x00, max: 0x1f }).filter((c) => c !== 0x0a && c !== 0x09),
      fc.constant(0x7f),
      fc.integer({ min: 0x80, max: 0x9f }),
      fc.constantFrom(
        0x061c,
        0x200e,
        0x200f,
        0x202a,
        0x202b,
        0x202c,
        0x202d,
        0x202e,
        0x2066,
        0x2069,
      ),
    )
    .map((c) => String.fromCodePoint(c));

/** Text with control characters and whole ESC/OSC sequences mixed in. */
export const arbHostileText = (): fc.Arbitrary<string> =>
  fc
    .array(
      fc.oneof(
        fc.string(),
        arbControlChar(),
        fc.constantFrom(
          '\x1b[2J\x1b[H',
          '\x1b]0;pwned\x07',
          '\x1b]8;;http://x\x1b\\',
          '\r',
          '\x9b31m',
        ),
      ),
    )
    .map((parts) => parts.join(''));
