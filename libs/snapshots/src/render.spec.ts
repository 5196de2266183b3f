import * as zlib from 'node:zlib';
import { loadImage } from '@napi-rs/canvas';
import { layoutText } from './layout';
import {
  characterAccuracy,
  normalizeForOcr,
  ocrPng,
  printedText,
  tesseractAvailable,
} from './measure';
import { crc32, PNG_SIGNATURE } from './png';
import { renderPage, renderPages, renderText } from './render';
import { SHAPES } from './shapes';

const SAMPLE = [
  '[user] Read packages/coding-agent/docs/theme.md in full, then theme.ts.',
  '[assistant] I will read the theme documentation and the selector files first.',
  '[tool_use read toolu_017qEkVzzPb7b7o4FkgJLF23] {"path":"packages/coding-agent/docs/theme.md"}',
  '[user] [tool_result toolu_017qEkVzzPb7b7o4FkgJLF23] # Pi Coding Agent Themes',
  'Themes allow you to customize the colors used throughout the coding agent TUI.',
  'Every theme must define all color tokens. There are no optional colors.',
  'function resolveVarRefs(value: ColorValue, vars: Record<string, ColorValue>): string {',
  '  if (typeof value === "number" || value.startsWith("#")) return value;',
  '  throw new Error(`Variable reference not found: ${value}`);',
  '}',
].join('\n');

interface PngInfo {
  width: number;
  height: number;
  bitDepth: number;
  colorType: number;
  chunks: string[];
}

/** Parses a PNG's chunk list, checking every CRC. */
function parsePng(png: Buffer): PngInfo {
  expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
  const chunks: string[] = [];
  let offset = 8;
  let info = { width: 0, height: 0, bitDepth: 0, colorType: 0 };
  while (offset < png.length) {
    const length = png.readUInt32BE(offset);
    const type = png.toString('latin1', offset + 4, offset + 8);
    const body = png.subarray(offset + 4, offset + 8 + length);
    expect(png.readUInt32BE(offset + 8 + length)).toBe(crc32(body));
    if (type === 'IHDR') {
      info = {
        width: png.readUInt32BE(offset + 8),
        height: png.readUInt32BE(offset + 12),
        bitDepth: png[offset + 16],
        colorType: png[offset + 17],
      };
    }
    chunks.push(type);
    offset += 12 + length;
  }
  return { ...info, chunks };
}

describe('renderPages', () => {
  it('writes valid PNGs of the shape size, one per laid-out page', async () => {
    const text = SAMPLE.repeat(40);
    for (const id of ['claude', 'openai-tile'] as const) {
      const shape = SHAPES[id];
      const pngs = await renderPages(text, shape);
      const layout = layoutText(text, { columns: shape.columns, rows: shape.rows });
      expect(pngs).toHaveLength(layout.pages.length);
      for (const png of pngs) {
        const info = parsePng(png);
        expect(info).toMatchObject({ width: shape.width, height: shape.height, bitDepth: 8 });
        expect(info.chunks[0]).toBe('IHDR');
        expect(info.chunks[info.chunks.length - 1]).toBe('IEND');
        const image = await loadImage(png); // a real decoder accepts it
        expect([image.width, image.height]).toEqual([shape.width, shape.height]);
      }
    }
  });

  it('is deterministic: rendering the same source twice gives identical bytes', async () => {
    const text = SAMPLE.repeat(30);
    const a = await renderPages(text, 'claude');
    const b = await renderPages(String(text), 'claude');
    expect(a.length).toBeGreaterThan(1);
    expect(b.map((p) => p.toString('base64'))).toEqual(a.map((p) => p.toString('base64')));
  });

  it('draws the text: different source, different pixels; empty text, no page', async () => {
    const [one] = await renderPages('alpha', 'gemini');
    const [two] = await renderPages('alphb', 'gemini');
    expect(one.equals(two)).toBe(false);
    expect(await renderPages('', 'gemini')).toEqual([]);
  });

  it('puts ink only where the text is: a blank page is all white', async () => {
    const [png] = await renderPages(' '.repeat(50), 'gemini');
    const idat = parsePng(png);
    expect(idat.colorType).toBe(0);
    // Decompress and check every pixel is 255 (row filters are all 0 = none).
    const start = png.indexOf('IDAT', 8, 'latin1');
    const length = png.readUInt32BE(start - 4);
    const raw = zlib.inflateSync(png.subarray(start + 4, start + 4 + length));
    const width = SHAPES.gemini.width;
    for (let y = 0; y < SHAPES.gemini.height; y++) {
      const row = raw.subarray(y * (width + 1), (y + 1) * (width + 1));
      expect(row[0]).toBe(0);
      expect(row.subarray(1).every((v) => v === 255)).toBe(true);
    }
  });

  it('takes source text only, never images or buffers (invariant 7)', async () => {
    const [page] = await renderPages('x', 'claude');
    await expect(renderPages(page as unknown as string, 'claude')).rejects.toThrow(TypeError);
    await expect(renderText({} as unknown as string, 'claude')).rejects.toThrow(/source text only/);
  });

  it('honours the page cap and says what did not fit', async () => {
    const text = SAMPLE.repeat(200);
    const { pngs, layout } = await renderText(text, 'gemini', { maxPages: 2 });
    expect(pngs).toHaveLength(2);
    expect(layout.omitted.chars).toBe(text.length - layout.pages[1].end);
  });

  it('renders a single page the same way renderPages does', async () => {
    const shape = SHAPES['claude-conservative'];
    const layout = layoutText(SAMPLE, { columns: shape.columns, rows: shape.rows });
    const [viaPages] = await renderPages(SAMPLE, shape);
    expect((await renderPage(layout.pages[0], shape)).equals(viaPages)).toBe(true);
  });
});

describe('OCR legibility (Tesseract)', () => {
  const available = tesseractAvailable();
  if (!available)
    console.log('OCR test skipped: tesseract is not on PATH (apt-get install -y tesseract-ocr)');
  const maybe = available ? it : it.skip;

  maybe(
    'Tesseract reads a dense Claude page back at ≥ 95 % character accuracy',
    async () => {
      const text = SAMPLE.repeat(60);
      const { layout, pngs } = await renderText(text, 'claude', { maxPages: 1 });
      const accuracy = characterAccuracy(layout.pages[0].text, await ocrPng(pngs[0], 2));
      console.log(`OCR character accuracy on a dense Claude page: ${(accuracy * 100).toFixed(2)}%`);
      expect(accuracy).toBeGreaterThanOrEqual(0.95);
    },
    120_000,
  );
});

describe('printedText', () => {
  it('is the page row by row: a wrap becomes a line break, a line-break cell a blank', () => {
    const layout = layoutText('abcdef\ngh', { columns: 4, rows: 4 });
    expect(printedText(layout.pages[0])).toBe('abcd\nef g\nh');
    expect(normalizeForOcr(printedText(layout.pages[0]))).toBe('abcd ef g h');
  });
});
