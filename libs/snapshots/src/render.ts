/** Pages are drawn from source text only (invariant 7); same text and shape, same bytes. */
import { glyphMask, stamp } from './glyphs';
import { encodeGrayPng } from './png';
import { layoutText, NEWLINE_CELL, type Layout, type LayoutMode, type Page } from './layout';
import { resolveShape, type PageShape } from './shapes';

export const NEWLINE_GLYPH = '¶';
export const CONTINUATION_GLYPH = '»';
export const INK = '#000000';
/** Faint: a darker mark is read by OCR as `°` or `4`. */
export const MARK_INK = '#eeeeee';
export const PAPER_GRAY = 255;

/** Rows drawn between two turns of the event loop. */
export const ROWS_PER_SLICE = 16;

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

function drawRow(gray: Uint8Array, shape: PageShape, cells: string, top: number): number {
  const { grid, width, height } = shape;
  let column = 0;
  for (const ch of cells) {
    const x = grid.marginPx + column * grid.advancePx;
    if (ch === NEWLINE_CELL)
      stamp(gray, width, height, glyphMask(NEWLINE_GLYPH, grid, MARK_INK), x, top);
    else if (ch !== ' ') stamp(gray, width, height, glyphMask(ch, grid, INK), x, top);
    column += 1;
  }
  return column;
}

export async function renderPage(page: Page, shapeOrId: PageShape | string): Promise<Buffer> {
  const shape = resolveShape(shapeOrId);
  const { grid, width, height } = shape;
  const gray = new Uint8Array(width * height).fill(PAPER_GRAY);
  for (let r = 0; r < page.rows.length; r++) {
    if (r > 0 && r % ROWS_PER_SLICE === 0) await yieldToEventLoop();
    const row = page.rows[r];
    const top = grid.marginPx + r * grid.lineHeightPx;
    const used = drawRow(gray, shape, row.cells, top);
    if (row.continued) {
      const x = grid.marginPx + used * grid.advancePx;
      stamp(gray, width, height, glyphMask(CONTINUATION_GLYPH, grid, MARK_INK), x, top);
    }
  }
  return encodeGrayPng(gray, width, height);
}

export async function renderText(
  text: string,
  shapeOrId: PageShape | string,
  options: RenderOptions = {},
): Promise<RenderedLayout> {
  assertText(text);
  const shape = resolveShape(shapeOrId);
  const layout = layoutText(text, {
    columns: shape.columns,
    rows: shape.rows,
    ...options,
    mode: options.mode ?? shape.layout,
  });
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

export async function renderPages(
  text: string,
  shape: PageShape | string,
  options: RenderOptions = {},
): Promise<Buffer[]> {
  return (await renderText(text, shape, options)).pngs;
}
