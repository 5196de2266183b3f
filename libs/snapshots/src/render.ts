/**
 * Text → PNG pages. Pages are drawn from source text only (SPEC §5.7): the API takes a string,
 * lays it out (layout.ts) and draws every cell at a fixed integer position — black grayscale-
 * antialiased glyphs on white (binarizing measured worse under OCR), line breaks and continuation
 * marks in light gray. Deterministic: the same text and shape give the same bytes.
 * Pages are encoded as 8-bit grayscale PNG (png.ts): smaller and faster than the canvas's RGBA
 * encoder, and, like `canvas.encode`, compressed on the thread pool, off the event loop.
 */
import { createCanvas, type SKRSContext2D } from '@napi-rs/canvas';
import { SNAPSHOT_FONT } from './font';
import { encodeGrayPng, grayFromRgba } from './png';
import { layoutText, NEWLINE_CELL, type Layout, type LayoutMode, type Page } from './layout';
import { resolveShape, type PageShape } from './shapes';

export const NEWLINE_GLYPH = '¶';
export const CONTINUATION_GLYPH = '»';
export const INK = '#000000';
export const MARK_INK = '#dddddd';
export const PAPER = '#ffffff';

/** Rows drawn between two turns of the event loop. */
export const ROWS_PER_SLICE = 16;
/** Pixel rows read back between two turns of the event loop. */
export const PIXEL_ROWS_PER_SLICE = 256;

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export interface RenderOptions {
  mode?: LayoutMode;
  maxPages?: number;
  keep?: 'head' | 'tail';
}

export interface RenderedLayout {
  layout: Layout;
  shape: PageShape;
  pngs: Buffer[];
}

function assertText(text: unknown): asserts text is string {
  if (typeof text !== 'string')
    throw new TypeError('snapshot pages are rendered from source text only, never from images');
}

function drawCell(ctx: SKRSContext2D, glyph: string, x: number, y: number, mark: boolean): void {
  if (mark) {
    ctx.fillStyle = MARK_INK;
    ctx.fillText(glyph, x, y);
    ctx.fillStyle = INK;
  } else {
    ctx.fillText(glyph, x, y);
  }
}

function drawRow(ctx: SKRSContext2D, shape: PageShape, cells: string, y: number): number {
  const { marginPx, advancePx } = shape.grid;
  let column = 0;
  for (const ch of cells) {
    const x = marginPx + column * advancePx;
    if (ch === NEWLINE_CELL) drawCell(ctx, NEWLINE_GLYPH, x, y, true);
    else if (ch !== ' ') drawCell(ctx, ch, x, y, false);
    column += 1;
  }
  return column;
}

/** Draws one laid-out page; returns the PNG bytes. */
export async function renderPage(page: Page, shapeOrId: PageShape | string): Promise<Buffer> {
  const shape = resolveShape(shapeOrId);
  const { grid } = shape;
  const canvas = createCanvas(shape.width, shape.height);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = PAPER;
  ctx.fillRect(0, 0, shape.width, shape.height);
  ctx.lang = 'en';
  ctx.font = `${grid.sizePx}px ${SNAPSHOT_FONT.family}`;
  ctx.textBaseline = 'alphabetic';
  ctx.fillStyle = INK;
  for (let r = 0; r < page.rows.length; r++) {
    // Give the event loop a turn every few rows: a whole page is ~25 ms of synchronous drawing.
    if (r > 0 && r % ROWS_PER_SLICE === 0) await yieldToEventLoop();
    const row = page.rows[r];
    const y = grid.marginPx + r * grid.lineHeightPx + grid.baselinePx;
    const used = drawRow(ctx, shape, row.cells, y);
    if (row.continued)
      drawCell(ctx, CONTINUATION_GLYPH, grid.marginPx + used * grid.advancePx, y, true);
  }
  // Read the pixels back in bands, yielding between them, for the same reason.
  const gray = new Uint8Array(shape.width * shape.height);
  for (let y = 0; y < shape.height; y += PIXEL_ROWS_PER_SLICE) {
    const band = Math.min(PIXEL_ROWS_PER_SLICE, shape.height - y);
    const { data } = ctx.getImageData(0, y, shape.width, band);
    gray.set(grayFromRgba(data, shape.width, band), y * shape.width);
    await yieldToEventLoop();
  }
  return encodeGrayPng(gray, shape.width, shape.height);
}

/** Lays the text out in the shape's grid and renders every page (two encodes in flight). */
export async function renderText(
  text: string,
  shapeOrId: PageShape | string,
  options: RenderOptions = {},
): Promise<RenderedLayout> {
  assertText(text);
  const shape = resolveShape(shapeOrId);
  const layout = layoutText(text, { columns: shape.columns, rows: shape.rows, ...options });
  const pngs: Buffer[] = new Array<Buffer>(layout.pages.length);
  let previous: Promise<void> = Promise.resolve();
  for (const page of layout.pages) {
    const encoded = renderPage(page, shape).then((png) => {
      pngs[page.index] = png;
    });
    await previous;
    previous = encoded;
  }
  await previous;
  return { layout, shape, pngs };
}

/** Text in, PNG pages out. */
export async function renderPages(
  text: string,
  shape: PageShape | string,
  options: RenderOptions = {},
): Promise<Buffer[]> {
  return (await renderText(text, shape, options)).pngs;
}
