/**
 * Page shapes, one per provider billing scheme. A shape fixes the page's pixel size, the glyph
 * grid (font size, advance, line height, margins) and carries the provider's own resize and
 * billing functions, so the effective glyph size after the provider resizes the page and the
 * billed tokens per page are computed, never typed in.
 *
 * Sources for the provider formulas:
 * - Anthropic (docs.claude.com/en/docs/vision): tokens ≈ w·h/750; an image whose long edge is over
 *   1568 px or that is over ~1,600 tokens is first scaled down, aspect kept, until it fits
 *   (1092×1092 is the largest 1:1 size that is not resized, ≈1,590 tokens).
 * - OpenAI tile models (platform.openai.com/docs/guides/vision, "Calculating costs"): detail high
 *   fits the image in 2048×2048, then scales the shortest side to 768 (down only: a 128×64 image
 *   bills one tile, as measured on the community forum), then bills 170 per 512-px tile + 85.
 * - OpenAI patch models (same page): 32×32-px patches, capped at 1,536 (larger images are scaled
 *   down to fit the cap), times a per-model multiplier (gpt-5-mini / gpt-4.1-mini 1.62,
 *   gpt-5-nano / gpt-4.1-nano 2.46, o4-mini 1.72).
 * - Gemini 2.x (ai.google.dev/gemini-api/docs/tokens; geminibyexample.com/027-calculate-input-tokens):
 *   both sides ≤ 384 px → 258 tokens; otherwise the image is cropped/scaled into 768×768 tiles,
 *   258 tokens each. Gemini 3 bills a flat budget per image chosen by `media_resolution`.
 */

import type { LayoutMode } from './layout';

export type ShapeId =
  | 'claude'
  | 'claude-dense'
  | 'claude-conservative'
  | 'claude-fine'
  | 'openai-tile'
  | 'openai-tile-large'
  | 'openai-patch'
  | 'openai-patch-fine'
  | 'gemini'
  | 'gemini-fine';
export type Provider = 'anthropic' | 'openai' | 'gemini';

export interface Size {
  width: number;
  height: number;
}

/** The glyph grid. Every character occupies one cell of `advancePx` × `lineHeightPx`. */
export interface GlyphGrid {
  /** Font size (em height) in px: the glyph size the ≥ 8 px rule is checked against. */
  sizePx: number;
  advancePx: number;
  lineHeightPx: number;
  /** Baseline offset from the top of a cell. */
  baselinePx: number;
  marginPx: number;
}

export interface PageShape extends Size {
  id: ShapeId;
  /** How text flows onto the grid (see layout.ts); `flow` unless the shape says otherwise. */
  layout: LayoutMode;
  provider: Provider;
  description: string;
  grid: GlyphGrid;
  /** Cells per row and rows per page, derived from the page size and the grid. */
  columns: number;
  rows: number;
  /** The size the provider resizes an image of `size` to before its model sees it. */
  resize(size: Size): Size;
  /** Tokens the provider bills for an image of `size` (as sent, before its resize). */
  billedTokens(size: Size): number;
}

// ---- Anthropic -------------------------------------------------------------------------------

export const ANTHROPIC_MAX_EDGE = 1568;
export const ANTHROPIC_MAX_TOKENS = 1600;
export const ANTHROPIC_PIXELS_PER_TOKEN = 750;

export function anthropicResize({ width, height }: Size): Size {
  const byEdge = ANTHROPIC_MAX_EDGE / Math.max(width, height);
  const byArea = Math.sqrt((ANTHROPIC_MAX_TOKENS * ANTHROPIC_PIXELS_PER_TOKEN) / (width * height));
  const scale = Math.min(1, byEdge, byArea);
  if (scale >= 1) return { width, height };
  return { width: Math.floor(width * scale), height: Math.floor(height * scale) };
}

export function anthropicTokens(size: Size): number {
  const { width, height } = anthropicResize(size);
  return Math.ceil((width * height) / ANTHROPIC_PIXELS_PER_TOKEN);
}

// ---- OpenAI, tile models (detail: high) -------------------------------------------------------

export const OPENAI_TILE = 512;
export const OPENAI_TILE_TOKENS = 170;
export const OPENAI_BASE_TOKENS = 85;

export function openaiTileResize({ width, height }: Size): Size {
  const fit = Math.min(1, 2048 / Math.max(width, height));
  let w = width * fit;
  let h = height * fit;
  const short = Math.min(1, 768 / Math.min(w, h));
  w *= short;
  h *= short;
  return { width: Math.floor(w), height: Math.floor(h) };
}

export function openaiTileTokens(size: Size): number {
  const { width, height } = openaiTileResize(size);
  const tiles = Math.ceil(width / OPENAI_TILE) * Math.ceil(height / OPENAI_TILE);
  return OPENAI_BASE_TOKENS + OPENAI_TILE_TOKENS * tiles;
}

// ---- OpenAI, patch models ---------------------------------------------------------------------

export const OPENAI_PATCH = 32;
export const OPENAI_PATCH_CAP = 1536;
/** gpt-5-mini and gpt-4.1-mini; pass another multiplier for other patch models. */
export const OPENAI_PATCH_MULTIPLIER = 1.62;

const patchCount = (w: number, h: number): number =>
  Math.ceil(w / OPENAI_PATCH) * Math.ceil(h / OPENAI_PATCH);

export function openaiPatchResize({ width, height }: Size): Size {
  if (patchCount(width, height) <= OPENAI_PATCH_CAP) return { width, height };
  // The documented procedure: shrink to the cap by area, then shrink again so that a whole
  // number of patches covers the width or the height.
  let r = Math.sqrt((OPENAI_PATCH * OPENAI_PATCH * OPENAI_PATCH_CAP) / (width * height));
  const pw = (width * r) / OPENAI_PATCH;
  const ph = (height * r) / OPENAI_PATCH;
  r *= Math.min(Math.floor(pw) / pw, Math.floor(ph) / ph);
  return { width: Math.floor(width * r), height: Math.floor(height * r) };
}

export function openaiPatchTokens(size: Size, multiplier = OPENAI_PATCH_MULTIPLIER): number {
  const { width, height } = openaiPatchResize(size);
  return Math.ceil(patchCount(width, height) * multiplier);
}

// ---- Gemini 2.x -------------------------------------------------------------------------------

export const GEMINI_TILE = 768;
export const GEMINI_TILE_TOKENS = 258;

/** Gemini sees 768-px tiles at their size; a page made of whole tiles is not rescaled. */
export function geminiResize(size: Size): Size {
  return { width: size.width, height: size.height };
}

export function geminiTokens({ width, height }: Size): number {
  if (width <= 384 && height <= 384) return GEMINI_TILE_TOKENS;
  return Math.ceil(width / GEMINI_TILE) * Math.ceil(height / GEMINI_TILE) * GEMINI_TILE_TOKENS;
}

// ---- Shapes -----------------------------------------------------------------------------------

interface ShapeSpec {
  id: ShapeId;
  layout?: LayoutMode;
  provider: Provider;
  description: string;
  width: number;
  height: number;
  grid: GlyphGrid;
  resize(size: Size): Size;
  billedTokens(size: Size): number;
}

export function makeShape(spec: ShapeSpec): PageShape {
  const { grid } = spec;
  const columns = Math.floor((spec.width - 2 * grid.marginPx) / grid.advancePx);
  const rows = Math.floor((spec.height - 2 * grid.marginPx) / grid.lineHeightPx);
  return Object.freeze({ ...spec, layout: spec.layout ?? 'flow', columns, rows });
}

/**
 * The dense grid: Ubuntu Mono at 11 px on a 6-px advance and an 11-px line. Chosen by measured
 * Tesseract accuracy among twelve monospace fonts and a dozen size/advance/leading settings
 * (libs/snapshots/README.md). `DENSE_GRID_TIGHT` puts it on a 10-px line: 10 % more rows for −0.3 points.
 */
export const DENSE_GRID: GlyphGrid = {
  sizePx: 11,
  advancePx: 6,
  lineHeightPx: 11,
  baselinePx: 8,
  marginPx: 4,
};

/**
 * The dense grid on a 10-px line: 10 % more rows. Measured on the same text (3 pages, Tesseract
 * at 2×): 98.48–98.57 % against the printed rows, 98.01–98.18 % against the source slice.
 */
export const DENSE_GRID_TIGHT: GlyphGrid = { ...DENSE_GRID, lineHeightPx: 10 };

/**
 * Ubuntu Mono at 14 px on its own advance (7 px) and a 14-px line: glyphs ~27 % larger than the
 * dense grid, for pages whose billing leaves room (OpenAI's 512×2048 tile page still carries
 * ~3.7× the text's tokens). Measured on the same pages: OCR 98.9–99.2 % against the printed rows,
 * vs 97.9–99.0 % for the dense grid.
 */
export const LARGE_GRID: GlyphGrid = {
  sizePx: 14,
  advancePx: 7,
  lineHeightPx: 14,
  baselinePx: 11,
  marginPx: 4,
};

/**
 * Ubuntu Mono at 10 px on its own advance (5 px) and a 9-px line: 1.33× the cells of the dense
 * tight grid, for the oldest part of a foveated snapshot (the part furthest from what the model
 * reads verbatim), where density matters more than every character (OCR: libs/snapshots/README.md).
 */
export const FINE_GRID: GlyphGrid = {
  sizePx: 10,
  advancePx: 5,
  lineHeightPx: 9,
  baselinePx: 7,
  marginPx: 4,
};

/** The seed harness's legible grid: 8×13 glyphs on an 11-px advance and a 16-px line. */
export const CONSERVATIVE_GRID: GlyphGrid = {
  sizePx: 13,
  advancePx: 11,
  lineHeightPx: 16,
  baselinePx: 12,
  marginPx: 8,
};

/**
 * The shapes by id. Snapshot decisions record the id and later calls re-render their pages from
 * it, so a shipped shape never changes its size or grid: a different page is a new id.
 */
export const SHAPES: Readonly<Record<ShapeId, PageShape>> = Object.freeze({
  claude: makeShape({
    id: 'claude',
    provider: 'anthropic',
    description: 'Anthropic, largest 1:1 page not resized (w·h/750)',
    width: 1092,
    height: 1092,
    grid: DENSE_GRID,
    resize: anthropicResize,
    billedTokens: anthropicTokens,
  }),
  'claude-dense': makeShape({
    id: 'claude-dense',
    provider: 'anthropic',
    description: 'Anthropic, 1092² not resized, 11-px glyphs on a 10-px line',
    width: 1092,
    height: 1092,
    grid: DENSE_GRID_TIGHT,
    resize: anthropicResize,
    billedTokens: anthropicTokens,
  }),
  'claude-conservative': makeShape({
    id: 'claude-conservative',
    provider: 'anthropic',
    description: 'Anthropic, seed harness glyphs (8×13 on 11×16 cells)',
    width: 1092,
    height: 1092,
    grid: CONSERVATIVE_GRID,
    resize: anthropicResize,
    billedTokens: anthropicTokens,
  }),
  'claude-fine': makeShape({
    id: 'claude-fine',
    provider: 'anthropic',
    description: 'Anthropic, 1092² not resized, 10-px glyphs on 5×9 cells (foveated: oldest)',
    width: 1092,
    height: 1092,
    grid: FINE_GRID,
    resize: anthropicResize,
    billedTokens: anthropicTokens,
  }),
  'openai-tile': makeShape({
    id: 'openai-tile',
    provider: 'openai',
    description: 'OpenAI tile models at detail high: 1×4 tiles of 512 px, not resized',
    width: 512,
    height: 2048,
    grid: DENSE_GRID,
    resize: openaiTileResize,
    billedTokens: openaiTileTokens,
  }),
  'openai-tile-large': makeShape({
    id: 'openai-tile-large',
    provider: 'openai',
    description:
      'OpenAI tile models at detail high: 1×4 tiles of 512 px, 14-px glyphs, words kept whole',
    layout: 'flow-words',
    width: 512,
    height: 2048,
    grid: LARGE_GRID,
    resize: openaiTileResize,
    billedTokens: openaiTileTokens,
  }),
  'openai-patch': makeShape({
    id: 'openai-patch',
    provider: 'openai',
    description: `OpenAI patch models: 32×48 patches of 32 px (cap 1,536) × ${OPENAI_PATCH_MULTIPLIER}`,
    width: 1024,
    height: 1536,
    grid: DENSE_GRID,
    resize: openaiPatchResize,
    billedTokens: (size) => openaiPatchTokens(size),
  }),
  'openai-patch-fine': makeShape({
    id: 'openai-patch-fine',
    provider: 'openai',
    description: 'OpenAI patch models, 1024×1536, 10-px glyphs on 5×9 cells (foveated: oldest)',
    width: 1024,
    height: 1536,
    grid: FINE_GRID,
    resize: openaiPatchResize,
    billedTokens: (size) => openaiPatchTokens(size),
  }),
  gemini: makeShape({
    id: 'gemini',
    provider: 'gemini',
    description: 'Gemini 2.x: one 768×768 tile at 258 tokens',
    width: 768,
    height: 768,
    grid: DENSE_GRID,
    resize: geminiResize,
    billedTokens: geminiTokens,
  }),
  'gemini-fine': makeShape({
    id: 'gemini-fine',
    provider: 'gemini',
    description: 'Gemini 2.x, one 768² tile, 10-px glyphs on 5×9 cells (foveated: oldest)',
    width: 768,
    height: 768,
    grid: FINE_GRID,
    resize: geminiResize,
    billedTokens: geminiTokens,
  }),
});

export const SHAPE_IDS = Object.keys(SHAPES) as ShapeId[];

export function isShapeId(value: string): value is ShapeId {
  return Object.prototype.hasOwnProperty.call(SHAPES, value);
}

/** A shape by id, or the shape itself; unknown ids throw (a typo must not render silently). */
export function resolveShape(shape: PageShape | string): PageShape {
  if (typeof shape !== 'string') return shape;
  if (!isShapeId(shape)) throw new RangeError(`unknown page shape "${shape}"`);
  return SHAPES[shape];
}

/** Tokens the provider bills for one page of this shape. */
export function tokensPerPage(shape: PageShape): number {
  return shape.billedTokens({ width: shape.width, height: shape.height });
}

/** The glyph size (font px) the model sees after the provider resized the page. */
export function effectiveGlyphPx(shape: PageShape): number {
  const resized = shape.resize({ width: shape.width, height: shape.height });
  const scale = Math.min(resized.width / shape.width, resized.height / shape.height);
  return shape.grid.sizePx * scale;
}

/** Cells on a page: the most characters one page can hold. */
export function cellsPerPage(shape: PageShape): number {
  return shape.columns * shape.rows;
}
