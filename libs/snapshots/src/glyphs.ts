/** Each glyph is rasterized once and stamped: the pixels of a `fillText` per cell, far cheaper. */
import { createCanvas } from '@napi-rs/canvas';
import { SNAPSHOT_FONT } from './font';
import type { GlyphGrid } from './shapes';

export const GLYPH_PAD = 3;

export interface GlyphMask {
  width: number;
  height: number;
  pixels: Uint8Array;
  blank: boolean;
}

const caches = new Map<string, Map<string, GlyphMask>>();

function cacheFor(grid: GlyphGrid, ink: string): Map<string, GlyphMask> {
  const key = `${grid.sizePx}/${grid.advancePx}/${grid.lineHeightPx}/${grid.baselinePx}/${ink}`;
  let cache = caches.get(key);
  if (!cache) {
    cache = new Map();
    caches.set(key, cache);
  }
  return cache;
}

function rasterize(glyph: string, grid: GlyphGrid, ink: string): GlyphMask {
  const font = `${grid.sizePx}px ${SNAPSHOT_FONT.family}`;
  const probe = createCanvas(1, 1).getContext('2d');
  probe.lang = 'en';
  probe.font = font;
  const advance = Math.max(grid.advancePx, Math.ceil(probe.measureText(glyph).width));
  const width = advance + 2 * GLYPH_PAD;
  const height = grid.lineHeightPx + 2 * GLYPH_PAD;
  const canvas = createCanvas(width, height);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, width, height);
  ctx.lang = 'en';
  ctx.font = font;
  ctx.textBaseline = 'alphabetic';
  ctx.fillStyle = ink;
  ctx.fillText(glyph, GLYPH_PAD, GLYPH_PAD + grid.baselinePx);
  const { data } = ctx.getImageData(0, 0, width, height);
  const pixels = new Uint8Array(width * height);
  let blank = true;
  for (let i = 0, p = 0; p < pixels.length; i += 4, p++) {
    pixels[p] = data[i];
    if (data[i] !== 255) blank = false;
  }
  return { width, height, pixels, blank };
}

export function glyphMask(glyph: string, grid: GlyphGrid, ink: string): GlyphMask {
  const cache = cacheFor(grid, ink);
  let mask = cache.get(glyph);
  if (!mask) {
    mask = rasterize(glyph, grid, ink);
    cache.set(glyph, mask);
  }
  return mask;
}

/** Multiplies `mask` into the page so that the mask's cell origin lands on (x, y). */
export function stamp(
  page: Uint8Array,
  pageWidth: number,
  pageHeight: number,
  mask: GlyphMask,
  x: number,
  y: number,
): void {
  if (mask.blank) return;
  const left = x - GLYPH_PAD;
  const top = y - GLYPH_PAD;
  for (let my = 0; my < mask.height; my++) {
    const py = top + my;
    if (py < 0 || py >= pageHeight) continue;
    const rowM = my * mask.width;
    const rowP = py * pageWidth;
    for (let mx = 0; mx < mask.width; mx++) {
      const m = mask.pixels[rowM + mx];
      if (m === 255) continue;
      const px = left + mx;
      if (px < 0 || px >= pageWidth) continue;
      const i = rowP + px;
      page[i] = (page[i] * m + 127) / 255;
    }
  }
}
