import {
  anthropicResize,
  anthropicTokens,
  cellsPerPage,
  effectiveGlyphPx,
  geminiTokens,
  openaiPatchResize,
  openaiPatchTokens,
  openaiTileResize,
  openaiTileTokens,
  resolveShape,
  SHAPE_IDS,
  SHAPES,
  tokensPerPage,
} from './shapes';

describe('provider formulas', () => {
  it('Anthropic: w·h/750, scaled down past a 1568-px edge or ~1,600 tokens', () => {
    expect(anthropicTokens({ width: 1092, height: 1092 })).toBe(Math.ceil((1092 * 1092) / 750));
    expect(anthropicResize({ width: 1092, height: 1092 })).toEqual({ width: 1092, height: 1092 });
    expect(anthropicResize({ width: 3136, height: 200 }).width).toBe(1568);
    const big = anthropicResize({ width: 2000, height: 2000 });
    expect((big.width * big.height) / 750).toBeLessThanOrEqual(1600);
    expect(anthropicTokens({ width: 2000, height: 2000 })).toBeLessThanOrEqual(1600);
  });

  it('OpenAI tiles: the documented examples (1024² → 765, 2048×4096 → 1105)', () => {
    expect(openaiTileResize({ width: 1024, height: 1024 })).toEqual({ width: 768, height: 768 });
    expect(openaiTileTokens({ width: 1024, height: 1024 })).toBe(765);
    expect(openaiTileResize({ width: 2048, height: 4096 })).toEqual({ width: 768, height: 1536 });
    expect(openaiTileTokens({ width: 2048, height: 4096 })).toBe(1105);
    // Small images are not upscaled: a 512×2048 page is 1×4 tiles.
    expect(openaiTileTokens({ width: 512, height: 2048 })).toBe(85 + 170 * 4);
  });

  it('OpenAI patches: 32-px patches, capped at 1,536, times the multiplier', () => {
    expect(openaiPatchTokens({ width: 1024, height: 1024 }, 1)).toBe(1024);
    expect(openaiPatchTokens({ width: 1024, height: 1536 }, 1)).toBe(1536);
    expect(openaiPatchTokens({ width: 1024, height: 1536 }, 1.62)).toBe(Math.ceil(1536 * 1.62));
    // Documented example: 1800×2400 → 1452 patches.
    expect(openaiPatchTokens({ width: 1800, height: 2400 }, 1)).toBe(1452);
    const r = openaiPatchResize({ width: 1800, height: 2400 });
    expect(Math.ceil(r.width / 32) * Math.ceil(r.height / 32)).toBeLessThanOrEqual(1536);
  });

  it('Gemini 2.x: 258 per 768² tile, 258 for a small image', () => {
    expect(geminiTokens({ width: 300, height: 300 })).toBe(258);
    expect(geminiTokens({ width: 768, height: 768 })).toBe(258);
    expect(geminiTokens({ width: 1536, height: 769 })).toBe(258 * 4);
  });
});

describe('page shapes', () => {
  it.each(SHAPE_IDS)('%s keeps glyphs ≥ 8 px after the provider resizes the page', (id) => {
    expect(effectiveGlyphPx(SHAPES[id])).toBeGreaterThanOrEqual(8);
  });

  it.each(SHAPE_IDS)('%s bills what its provider formula says for the page size', (id) => {
    const shape = SHAPES[id];
    const size = { width: shape.width, height: shape.height };
    const expected = {
      anthropic: anthropicTokens(size),
      openai: id.startsWith('openai-tile') ? openaiTileTokens(size) : openaiPatchTokens(size),
      gemini: geminiTokens(size),
    }[shape.provider];
    expect(tokensPerPage(shape)).toBe(expected);
  });

  it.each(SHAPE_IDS)('%s: the grid fits inside the page and its margins', (id) => {
    const { grid, columns, rows, width, height } = SHAPES[id];
    expect(2 * grid.marginPx + columns * grid.advancePx).toBeLessThanOrEqual(width);
    expect(2 * grid.marginPx + rows * grid.lineHeightPx).toBeLessThanOrEqual(height);
    expect(grid.baselinePx).toBeLessThan(grid.lineHeightPx);
  });

  it('the default shapes send pages the provider does not shrink', () => {
    for (const id of SHAPE_IDS) {
      const s = SHAPES[id];
      expect(s.resize({ width: s.width, height: s.height })).toEqual({
        width: s.width,
        height: s.height,
      });
    }
  });

  it('the seed conservative shape is 11×16 cells; the dense ones hold ≥ 2.5× its cells', () => {
    expect(SHAPES['claude-conservative'].grid).toMatchObject({ advancePx: 11, lineHeightPx: 16 });
    expect(cellsPerPage(SHAPES.claude)).toBeGreaterThan(
      2.5 * cellsPerPage(SHAPES['claude-conservative']),
    );
  });

  it('resolves shapes by id and refuses unknown ones', () => {
    expect(resolveShape('gemini')).toBe(SHAPES.gemini);
    expect(resolveShape(SHAPES.claude)).toBe(SHAPES.claude);
    expect(() => resolveShape('claud')).toThrow(RangeError);
  });
});
