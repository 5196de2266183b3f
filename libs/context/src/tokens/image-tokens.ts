/** Image tokens by the providers' documented formulas (sources: README.md), all overridable. */
import type { ProviderName } from '../types';
import type { ImageSize } from './image-size';

export interface AnthropicImageParams {
  maxLongEdge: number;
  maxPixels: number;
  pixelsPerToken: number;
}
export const ANTHROPIC_IMAGE: AnthropicImageParams = {
  maxLongEdge: 1568,
  maxPixels: 1600 * 750,
  pixelsPerToken: 750,
};

export interface OpenAITileParams {
  kind: 'tile';
  base: number;
  tile: number;
}
export interface OpenAIPatchParams {
  kind: 'patch';
  multiplier: number;
  maxPatches: number;
}
export type OpenAIImageParams = OpenAITileParams | OpenAIPatchParams;

const tile = (base: number, perTile: number): OpenAITileParams => ({
  kind: 'tile',
  base,
  tile: perTile,
});
const patch = (multiplier: number): OpenAIPatchParams => ({
  kind: 'patch',
  multiplier,
  maxPatches: 1536,
});

export const OPENAI_IMAGE_MODELS: Readonly<Record<string, OpenAIImageParams>> = {
  'gpt-4.1-mini': patch(1.62),
  'gpt-4.1-nano': patch(2.46),
  'gpt-5-mini': patch(1.62),
  'gpt-5-nano': patch(2.46),
  'o4-mini': patch(1.72),
  'gpt-4o-mini': tile(2833, 5667),
  'gpt-4o': tile(85, 170),
  'gpt-4.1': tile(85, 170),
  'gpt-4.5': tile(85, 170),
  'gpt-5': tile(70, 140),
  o1: tile(75, 150),
  o3: tile(75, 150),
  'computer-use-preview': tile(65, 129),
};
export const OPENAI_DEFAULT_IMAGE: OpenAIImageParams = tile(85, 170);

export function openAIImageParams(model: string): OpenAIImageParams {
  const name = model.toLowerCase();
  const prefix = Object.keys(OPENAI_IMAGE_MODELS)
    .filter((p) => name.startsWith(p))
    .sort((a, b) => b.length - a.length)[0];
  return prefix !== undefined ? OPENAI_IMAGE_MODELS[prefix] : OPENAI_DEFAULT_IMAGE;
}

export function anthropicImageTokens(
  { width, height }: ImageSize,
  params: AnthropicImageParams = ANTHROPIC_IMAGE,
): number {
  const scale = Math.min(
    1,
    params.maxLongEdge / Math.max(width, height),
    Math.sqrt(params.maxPixels / (width * height)),
  );
  const w = Math.max(1, Math.floor(width * scale));
  const h = Math.max(1, Math.floor(height * scale));
  return Math.ceil((w * h) / params.pixelsPerToken);
}

export type ImageDetail = 'auto' | 'low' | 'high';

export function openAITileTokens(
  { width, height }: ImageSize,
  params: OpenAITileParams,
  detail: ImageDetail = 'auto',
): number {
  if (detail === 'low') return params.base;
  let w = width;
  let h = height;
  const fit = Math.min(1, 2048 / Math.max(w, h));
  w *= fit;
  h *= fit;
  const shortest = Math.min(1, 768 / Math.min(w, h));
  w *= shortest;
  h *= shortest;
  return params.base + params.tile * Math.ceil(w / 512) * Math.ceil(h / 512);
}

/** ceil that ignores floating-point dust (1408.0000001 is 1408). */
const ceilClean = (x: number) => Math.ceil(x - 1e-9);

export function openAIPatchCount({ width, height }: ImageSize, maxPatches = 1536): number {
  const raw = ceilClean(width / 32) * ceilClean(height / 32);
  if (raw <= maxPatches) return raw;
  const shrink = Math.sqrt((maxPatches * 32 * 32) / (width * height));
  const widthPatches = (width * shrink) / 32;
  const scale = shrink * (Math.floor(widthPatches) / widthPatches);
  return Math.min(maxPatches, ceilClean((width * scale) / 32) * ceilClean((height * scale) / 32));
}

export function openAIPatchTokens(size: ImageSize, params: OpenAIPatchParams): number {
  return Math.ceil(openAIPatchCount(size, params.maxPatches) * params.multiplier);
}

export function openAIImageTokens(size: ImageSize, model: string, detail?: ImageDetail): number {
  const params = openAIImageParams(model);
  return params.kind === 'tile'
    ? openAITileTokens(size, params, detail)
    : openAIPatchTokens(size, params);
}

export interface GeminiImageParams {
  tokensPerTile: number;
  smallMaxSide: number;
  tileSide: number;
  flatTokens?: number;
}
export const GEMINI_IMAGE: GeminiImageParams = {
  tokensPerTile: 258,
  smallMaxSide: 384,
  tileSide: 768,
};
export const GEMINI_3_IMAGE: GeminiImageParams = { ...GEMINI_IMAGE, flatTokens: 1120 };

export function geminiImageParams(model: string): GeminiImageParams {
  return /(^|\/)gemini-3/i.test(model) ? GEMINI_3_IMAGE : GEMINI_IMAGE;
}

export function geminiImageTokens(
  { width, height }: ImageSize,
  params: GeminiImageParams = GEMINI_IMAGE,
): number {
  if (params.flatTokens !== undefined) return params.flatTokens;
  if (width <= params.smallMaxSide && height <= params.smallMaxSide) return params.tokensPerTile;
  return (
    params.tokensPerTile * Math.ceil(width / params.tileSide) * Math.ceil(height / params.tileSide)
  );
}

/** Unreadable size: the most one image costs after the provider's own resizing. */
export function unknownImageTokens(provider: ProviderName, model: string): number {
  if (provider === 'anthropic') return ANTHROPIC_IMAGE.maxPixels / ANTHROPIC_IMAGE.pixelsPerToken;
  if (provider === 'gemini') {
    const params = geminiImageParams(model);
    return params.flatTokens ?? params.tokensPerTile * 4;
  }
  const params = openAIImageParams(model);
  return params.kind === 'tile'
    ? params.base + params.tile * 8
    : Math.ceil(params.maxPatches * params.multiplier);
}

export function imageTokens(
  size: ImageSize | null,
  provider: ProviderName,
  model: string,
  detail?: ImageDetail,
): number {
  if (!size) return unknownImageTokens(provider, model);
  switch (provider) {
    case 'anthropic':
      return anthropicImageTokens(size);
    case 'gemini':
      return geminiImageTokens(size, geminiImageParams(model));
    case 'openai-chat':
    case 'openai-responses':
      return openAIImageTokens(size, model, detail);
  }
}
