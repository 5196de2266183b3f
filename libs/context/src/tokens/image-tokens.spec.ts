import {
  anthropicImageTokens,
  geminiImageTokens,
  GEMINI_3_IMAGE,
  imageTokens,
  openAIImageParams,
  openAIImageTokens,
  openAIPatchCount,
  unknownImageTokens,
} from './image-tokens';

const size = (width: number, height: number) => ({ width, height });

describe('anthropicImageTokens', () => {
  it.each([
    [200, 200, 54],
    [1000, 1000, 1334],
    [1092, 1092, 1590],
  ])('matches the documented example %ix%i ≈ %i tokens', (w, h, tokens) => {
    expect(anthropicImageTokens(size(w, h))).toBe(tokens);
  });

  it('scales down past 1568 px on the long edge and caps near 1600 tokens', () => {
    // 3136×400 → 1568×200 = 313,600 px → 419 tokens.
    expect(anthropicImageTokens(size(3136, 400))).toBe(419);
    expect(anthropicImageTokens(size(4000, 3000))).toBeLessThanOrEqual(1600);
    expect(anthropicImageTokens(size(4000, 3000))).toBeGreaterThan(1590);
  });
});

describe('openAIImageTokens', () => {
  it.each([
    ['gpt-4o', 1024, 1024, 765],
    ['gpt-4o', 2048, 4096, 1105],
    ['gpt-4.1', 1024, 1024, 765],
    ['gpt-4o-mini', 1024, 1024, 2833 + 4 * 5667],
    ['o3', 512, 512, 75 + 150],
    ['gpt-5', 1024, 1024, 70 + 4 * 140],
  ])('tile model %s: %ix%i → %i (documented examples)', (model, w, h, tokens) => {
    expect(openAIImageTokens(size(w, h), model, 'high')).toBe(tokens);
  });

  it('charges only the base for low detail', () => {
    expect(openAIImageTokens(size(4096, 8192), 'gpt-4o', 'low')).toBe(85);
  });

  it('counts patches as documented: 1024×1024 → 1024, 1800×2400 → 1452', () => {
    expect(openAIPatchCount(size(1024, 1024))).toBe(1024);
    expect(openAIPatchCount(size(1800, 2400))).toBe(1452);
    expect(openAIPatchCount(size(10000, 10000))).toBeLessThanOrEqual(1536);
  });

  it('multiplies patches by the model factor', () => {
    expect(openAIImageTokens(size(1024, 1024), 'gpt-4.1-mini')).toBe(Math.ceil(1024 * 1.62));
    expect(openAIImageTokens(size(1024, 1024), 'gpt-4.1-nano-2025-04-14')).toBe(
      Math.ceil(1024 * 2.46),
    );
    expect(openAIImageTokens(size(1024, 1024), 'o4-mini')).toBe(Math.ceil(1024 * 1.72));
  });

  it('picks the longest matching model prefix', () => {
    expect(openAIImageParams('gpt-4o-mini-2024-07-18')).toEqual({
      kind: 'tile',
      base: 2833,
      tile: 5667,
    });
    expect(openAIImageParams('gpt-5-mini')).toMatchObject({ kind: 'patch', multiplier: 1.62 });
    expect(openAIImageParams('some-future-model')).toMatchObject({ base: 85, tile: 170 });
  });
});

describe('geminiImageTokens', () => {
  it('costs 258 for an image with both sides ≤ 384 px', () => {
    expect(geminiImageTokens(size(384, 384))).toBe(258);
    expect(geminiImageTokens(size(10, 300))).toBe(258);
  });

  it('tiles larger images into 768×768 tiles of 258 tokens', () => {
    expect(geminiImageTokens(size(385, 100))).toBe(258);
    expect(geminiImageTokens(size(1536, 768))).toBe(516);
    expect(geminiImageTokens(size(2000, 1008))).toBe(258 * 3 * 2);
  });

  it('bills Gemini 3 at a flat default resolution', () => {
    expect(geminiImageTokens(size(4000, 3000), GEMINI_3_IMAGE)).toBe(1120);
    expect(imageTokens(size(10, 10), 'gemini', 'gemini-3-pro-preview')).toBe(1120);
  });
});

describe('imageTokens', () => {
  it('dispatches on provider and falls back to the largest single-image cost', () => {
    expect(imageTokens(size(200, 200), 'anthropic', 'claude-opus-4-1')).toBe(54);
    expect(imageTokens(size(1024, 1024), 'openai-responses', 'gpt-4o')).toBe(765);
    expect(imageTokens(null, 'anthropic', 'claude')).toBe(1600);
    expect(imageTokens(null, 'openai-chat', 'gpt-4o')).toBe(85 + 170 * 8);
    expect(unknownImageTokens('openai-chat', 'gpt-4.1-mini')).toBe(Math.ceil(1536 * 1.62));
    expect(imageTokens(null, 'gemini', 'gemini-2.5-pro')).toBe(258 * 4);
  });
});
