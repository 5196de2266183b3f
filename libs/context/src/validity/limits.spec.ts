import type { AnthropicBody } from '../providers/anthropic';
import { resolveCapabilities } from '../ladder/capabilities';
import { makePngBase64 } from '../testing/images';
import { checkBody } from '.';
import { PROVIDER_LIMITS, maxImagesFor, resolveLimits } from './limits';

const data = makePngBase64(2, 2);
const withImages = (model: string, n: number): AnthropicBody => ({
  model,
  max_tokens: 10,
  messages: [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'look' },
        ...Array.from({ length: n }, () => ({
          type: 'image' as const,
          source: { type: 'base64' as const, media_type: 'image/png' as const, data },
        })),
      ],
    },
  ],
});

describe('images per request, by provider and model', () => {
  it('follows the documented numbers', () => {
    expect(maxImagesFor('anthropic', 'claude-sonnet-4-5')).toBe(100);
    expect(maxImagesFor('anthropic', 'claude-haiku-4-5')).toBe(100);
    expect(maxImagesFor('anthropic', 'claude-opus-4-6')).toBe(600);
    expect(maxImagesFor('anthropic', 'claude-sonnet-4-6-20260101')).toBe(600);
    expect(maxImagesFor('openai-chat', 'gpt-4o')).toBe(500);
    expect(maxImagesFor('openai-responses', 'gpt-5')).toBe(500);
    expect(maxImagesFor('gemini', 'gemini-2.5-pro')).toBe(3000);
    expect(maxImagesFor('gemini', 'models/gemini-3-pro-preview')).toBe(900);
    expect(maxImagesFor('anthropic', undefined)).toBe(PROVIDER_LIMITS.anthropic.maxImages);
  });

  it('checks a body against its model’s limit; an explicit override still wins', () => {
    const body = withImages('claude-opus-4-6', 150);
    const codes = (model: string, limits = {}) =>
      checkBody('anthropic', body, { model, limits }).map((v) => v.code);
    expect(codes('claude-sonnet-4-5')).toEqual(['too_many_images']);
    expect(codes('claude-opus-4-6')).toEqual([]);
    expect(codes('claude-opus-4-6', { maxImages: 120 })).toEqual(['too_many_images']);
    expect(resolveLimits('anthropic', {}, 'claude-opus-4-6').maxImages).toBe(600);
  });

  it('caps snapshot pages by the same number unless the model is configured otherwise', () => {
    expect(resolveCapabilities('anthropic', 'claude-sonnet-4-5').maxSnapshotPages).toBe(100);
    expect(resolveCapabilities('anthropic', 'claude-opus-4-6').maxSnapshotPages).toBe(600);
    expect(resolveCapabilities('openai-chat', 'gpt-4o').maxSnapshotPages).toBe(500);
    expect(resolveCapabilities('gemini', 'gemini-2.5-flash').maxSnapshotPages).toBe(3000);
    expect(
      resolveCapabilities('gemini', 'gemini-2.5-flash', { limits: { maxImages: 10 } })
        .maxSnapshotPages,
    ).toBe(10);
    expect(
      resolveCapabilities('anthropic', 'claude-opus-4-6', { maxSnapshotPages: 7 }).maxSnapshotPages,
    ).toBe(7);
  });
});
