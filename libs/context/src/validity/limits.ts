/** Per-request limits as documented (sources: README.md); every number can be overridden. */
import type { ProviderName } from '../types';

export interface ProviderLimits {
  maxImages: number;
  maxImageBytes: number;
  imageBytesMeasure: 'base64' | 'decoded';
  maxTotalImageBytes?: number;
  maxRequestBytes?: number;
  maxImageSide?: number;
  manyImages?: { threshold: number; maxImageSide: number };
}

const MB = 1024 * 1024;

export const PROVIDER_LIMITS: Readonly<Record<ProviderName, ProviderLimits>> = {
  anthropic: {
    maxImages: 100,
    maxImageBytes: 5 * MB,
    imageBytesMeasure: 'base64',
    maxRequestBytes: 32 * MB,
    maxImageSide: 8000,
    manyImages: { threshold: 20, maxImageSide: 2000 },
  },
  'openai-chat': {
    maxImages: 500,
    maxImageBytes: 20 * MB,
    imageBytesMeasure: 'decoded',
    maxTotalImageBytes: 50 * MB,
  },
  'openai-responses': {
    maxImages: 500,
    maxImageBytes: 20 * MB,
    imageBytesMeasure: 'decoded',
    maxTotalImageBytes: 50 * MB,
  },
  gemini: {
    maxImages: 3000,
    maxImageBytes: 7 * MB,
    imageBytesMeasure: 'decoded',
    maxRequestBytes: 20 * MB,
  },
};

/** Where a model's image count differs from its provider's (sources: README.md). */
export const MODEL_IMAGE_LIMITS: Readonly<Record<ProviderName, Readonly<Record<string, number>>>> =
  {
    anthropic: {
      'claude-opus-4-6': 600,
      'claude-opus-4-7': 600,
      'claude-opus-4-8': 600,
      'claude-sonnet-4-6': 600,
      'claude-opus-5': 600,
      'claude-sonnet-5': 600,
    },
    'openai-chat': {},
    'openai-responses': {},
    gemini: { 'gemini-3-pro-preview': 900 },
  };

export function maxImagesFor(provider: ProviderName, model: string | undefined): number {
  const base = PROVIDER_LIMITS[provider].maxImages;
  if (model === undefined) return base;
  const name = model.toLowerCase().replace(/^.*\//, '');
  const table = MODEL_IMAGE_LIMITS[provider];
  let best: string | null = null;
  for (const prefix of Object.keys(table)) {
    if (name.startsWith(prefix) && (best === null || prefix.length > best.length)) best = prefix;
  }
  return best === null ? base : table[best];
}

export function resolveLimits(
  provider: ProviderName,
  overrides: Partial<ProviderLimits> = {},
  model?: string,
): ProviderLimits {
  return { ...PROVIDER_LIMITS[provider], maxImages: maxImagesFor(provider, model), ...overrides };
}
