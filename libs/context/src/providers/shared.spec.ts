import { isBlankText } from './shared';

describe('isBlankText', () => {
  it('agrees with trim() on every UTF-16 code unit, alone and around text', () => {
    const disagree: number[] = [];
    for (let code = 0; code <= 0xffff; code++) {
      const c = String.fromCharCode(code);
      if (isBlankText(c) !== (c.trim() === '')) disagree.push(code);
      if (isBlankText(`${c}x${c}`)) disagree.push(code);
    }
    expect(disagree).toEqual([]);
  });

  it('is true for empty and whitespace-only text, false otherwise', () => {
    expect(isBlankText('')).toBe(true);
    expect(isBlankText(' \n\t\u00a0\u2028\ufeff')).toBe(true);
    expect(isBlankText('\n\n  a')).toBe(false);
  });
});
