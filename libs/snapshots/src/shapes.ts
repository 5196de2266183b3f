/** Page shapes, one per provider billing scheme (the formulas' sources: README.md). */

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

export interface GlyphGrid {
  /** Font size (em height) in px: the glyph size the ≥ 8 px rule is checked against. */
  sizePx: number;
  advancePx: number;
  lineHeightPx: number;
  baselinePx: number;
  marginPx: number;
}

export interface PageShape extends Size {
  id: ShapeId;
  layout: LayoutMode;
  provider: Provider;
  description: string;
  grid: GlyphGrid;
  columns: number;
  rows: number;
  resize(size: Size): Size;
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

/** Chosen by measured Tesseract accuracy among twelve monospace fonts (README.md). */
export const DENSE_GRID: GlyphGrid = {
  sizePx: 11,
  advancePx: 6,
  lineHeightPx: 11,
  baselinePx: 8,
  marginPx: 4,
};

export const DENSE_GRID_TIGHT: GlyphGrid = { ...DENSE_GRID, lineHeightPx: 10 };

export const LARGE_GRID: GlyphGrid = {
  sizePx: 14,
  advancePx: 7,
  lineHeightPx: 14,
  baselinePx: 11,
  marginPx: 4,
};

export const FINE_GRID: GlyphGrid = {
  sizePx: 10,
  advancePx: 5,
  lineHeightPx: 9,
  baselinePx: 7,
  marginPx: 4,
};

export const CONSERVATIVE_GRID: GlyphGrid = {
  sizePx: 13,
  advancePx: 11,
  lineHeightPx: 16,
  baselinePx: 12,
  marginPx: 8,
};

/** A shipped shape never changes size or grid: decisions re-render their pages from the id. */
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

export function tokensPerPage(shape: PageShape): number {
  return shape.billedTokens({ width: shape.width, height: shape.height });
}

export function effectiveGlyphPx(shape: PageShape): number {
  const resized = shape.resize({ width: shape.width, height: shape.height });
  const scale = Math.min(resized.width / shape.width, resized.height / shape.height);
  return shape.grid.sizePx * scale;
}

export function cellsPerPage(shape: PageShape): number {
  return shape.columns * shape.rows;
}
