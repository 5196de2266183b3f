/**
 * Per-request limits of each provider, as documented; every number can be overridden (limits
 * move with models and platforms, e.g. Bedrock and Vertex take smaller requests).
 *
 * | provider | images / request | bytes / image | image bytes / request | request | max side |
 * |---|---|---|---|---|---|
 * | anthropic | 100 | 5 MB (of base64) | — | 32 MB | 8000 px; 2000 px above 20 images |
 * | openai (chat, responses) | 500 | 20 MB | 50 MB | — | — |
 * | gemini | 3000 | 7 MB | — | 20 MB | — |
 *
 * Sources:
 * - Anthropic, docs.anthropic.com/en/docs/build-with-claude/vision ("General limits"): 100
 *   images per request on the API for models with a 200k-token window, 600 for all other models
 *   (the 1M-token ones: Opus 4.6 and later, Sonnet 4.6 and later; see `MODEL_IMAGE_LIMITS`;
 *   20 per message on claude.ai, which does not concern the API), "32MB request
 *   size limit for standard endpoints", images larger than 8000×8000 px rejected, 2000×2000 px
 *   when a request has more than 20 images. The 5 MB per image is the API's error
 *   "image exceeds 5 MB maximum: N bytes > 5242880 bytes", measured on the base64 text.
 * - OpenAI, platform.openai.com/docs/guides/images-vision, "Image input requirements": "Up to
 *   20MB per image", "Up to 500 individual images per request", "Up to 50 MB image bytes per
 *   request". No overall body limit is documented.
 * - Gemini: ai.google.dev/gemini-api/docs/image-understanding / file-input-methods: inline data
 *   for a request whose total size (prompt, system instruction, files) stays under 20 MB — raised
 *   to 100 MB for the Gemini API in January 2026 (blog.google, "Increased file size limits"), kept
 *   at 20 MB here because Vertex AI and older endpoints still apply it; Vertex AI "Image
 *   understanding": at most 3,000 images per prompt (900 for Gemini 3 Pro preview) and 7 MB per
 *   inline image.
 */
import type { ProviderName } from '../types';

export interface ProviderLimits {
  maxImages: number;
  maxImageBytes: number;
  /** Whether the per-image limit counts base64 characters or decoded bytes. */
  imageBytesMeasure: 'base64' | 'decoded';
  maxTotalImageBytes?: number;
  /** Bytes of the body serialized as JSON (UTF-8). */
  maxRequestBytes?: number;
  maxImageSide?: number;
  /** A stricter side limit once a request holds more than `threshold` images. */
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

/**
 * Images per request by model where it differs from the provider's: lowercase name prefixes,
 * the longest match wins (a `models/…` path is dropped first).
 * - Anthropic: 600 for the models whose window is 1M tokens (Claude Opus 4.6, 4.7, 4.8, Sonnet
 *   4.6 and the 5 generation), 100 for the 200k-window ones (Sonnet 4.5 and earlier, Haiku 4.5).
 * - Gemini: 900 for Gemini 3 Pro preview (Vertex AI "Image understanding"), 3,000 otherwise.
 * - OpenAI: 500 for every vision model (one documented number).
 */
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

/** The provider's images-per-request limit for a model (see `MODEL_IMAGE_LIMITS`). */
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

/** The provider's limits, for the model when given, then the overrides. */
export function resolveLimits(
  provider: ProviderName,
  overrides: Partial<ProviderLimits> = {},
  model?: string,
): ProviderLimits {
  return { ...PROVIDER_LIMITS[provider], maxImages: maxImagesFor(provider, model), ...overrides };
}
