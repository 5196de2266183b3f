/**
 * What the CLI prints to a terminal: imported text may hold ESC/OSC sequences (clear the screen,
 * set the window title, forge a line with CR) and bidi controls. Every printer goes through
 * `escapeControl`: C0 (but newline and tab), DEL, C1 and the bidi controls become `\u{1b}`.
 */
const CONTROL =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

export const escapeControl = (text: string): string =>
  text.replace(CONTROL, (c) => `\\u{${(c.codePointAt(0) as number).toString(16)}}`);

/** True when `text` holds a character `escapeControl` would escape. */
export const hasControl = (text: string): boolean => new RegExp(CONTROL.source).test(text);
