import { GLYPH_PAD, glyphMask, stamp } from './glyphs';
import { DENSE_GRID } from './shapes';

describe('glyph masks', () => {
  it('rasterizes a glyph once and leaves a space blank', () => {
    const a = glyphMask('a', DENSE_GRID, '#000000');
    expect(glyphMask('a', DENSE_GRID, '#000000')).toBe(a);
    expect(a.blank).toBe(false);
    expect(a.pixels.some((v) => v < 128)).toBe(true);
    expect(glyphMask(' ', DENSE_GRID, '#000000').blank).toBe(true);
  });

  it('keeps inks apart: a gray mark is lighter than the same glyph in black', () => {
    const black = glyphMask('¶', DENSE_GRID, '#000000');
    const gray = glyphMask('¶', DENSE_GRID, '#dddddd');
    expect(Math.min(...gray.pixels)).toBeGreaterThan(Math.min(...black.pixels));
  });

  it('stamps the mask itself on white paper, at the cell origin, clipped to the page', () => {
    const mask = glyphMask('W', DENSE_GRID, '#000000');
    const width = 40;
    const height = 30;
    const page = new Uint8Array(width * height).fill(255);
    stamp(page, width, height, mask, 10, 5);
    for (let y = 0; y < mask.height; y++)
      for (let x = 0; x < mask.width; x++)
        expect(page[(5 - GLYPH_PAD + y) * width + (10 - GLYPH_PAD + x)]).toBe(
          mask.pixels[y * mask.width + x],
        );
    const corner = new Uint8Array(4 * 4).fill(255);
    expect(() => stamp(corner, 4, 4, mask, 0, 0)).not.toThrow();
  });

  it('composes overlapping ink by multiplication (never lighter than either)', () => {
    const mask = glyphMask('#', DENSE_GRID, '#000000');
    const page = new Uint8Array(30 * 30).fill(255);
    stamp(page, 30, 30, mask, 5, 5);
    const once = Uint8Array.from(page);
    stamp(page, 30, 30, mask, 6, 5);
    for (let i = 0; i < page.length; i++) expect(page[i]).toBeLessThanOrEqual(once[i]);
  });
});
