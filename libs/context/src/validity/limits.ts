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
 * - Anthropic, docs.anthropic.com/en/docs/build-with-claude/vision: "up to 100 images per
 *   request" on the API (600 for models whose window is larger than 200k tokens), "32MB request
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

export function resolveLimits(
  provider: ProviderName,
  overrides: Partial<ProviderLimits> = {},
): ProviderLimits {
  return { ...PROVIDER_LIMITS[provider], ...overrides };
}
