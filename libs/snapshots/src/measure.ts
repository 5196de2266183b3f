/** Legibility measurement for the bench and the OCR test (the scoring: README.md). */
import { execFile, execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import { NEWLINE_CELL, type Page } from './layout';
import type { Size } from './shapes';

export function printedText(page: Pick<Page, 'rows'>): string {
  return page.rows.map((row) => row.cells.split(NEWLINE_CELL).join(' ')).join('\n');
}

export function normalizeForOcr(text: string): string {
  return text
    .replace(/[“”„‟]/g, '"')
    .replace(/[‘’‚‛]/g, "'")
    .replace(/\s+/g, ' ')
    .trim();
}

export function levenshtein(
  a: string,
  b: string,
  band = Math.max(256, Math.abs(a.length - b.length) + 256),
): number {
  const n = a.length;
  const m = b.length;
  const INF = 1 << 30;
  let prev = new Int32Array(m + 1).fill(INF);
  let cur = new Int32Array(m + 1).fill(INF);
  for (let j = 0; j <= Math.min(m, band); j++) prev[j] = j;
  for (let i = 1; i <= n; i++) {
    cur.fill(INF);
    const lo = Math.max(0, i - band);
    const hi = Math.min(m, i + band);
    if (lo === 0) cur[0] = i;
    const ai = a.charCodeAt(i - 1);
    for (let j = Math.max(1, lo); j <= hi; j++) {
      let v = prev[j - 1] + (ai === b.charCodeAt(j - 1) ? 0 : 1);
      if (prev[j] + 1 < v) v = prev[j] + 1;
      if (cur[j - 1] + 1 < v) v = cur[j - 1] + 1;
      cur[j] = v;
    }
    [prev, cur] = [cur, prev];
  }
  return prev[m];
}

export function characterAccuracy(source: string, ocr: string): number {
  const a = normalizeForOcr(source);
  const b = normalizeForOcr(ocr);
  if (a.length === 0) return b.length === 0 ? 1 : 0;
  return Math.max(0, 1 - levenshtein(a, b) / a.length);
}

export async function resizePng(png: Buffer, size: Size): Promise<Buffer> {
  const image = await loadImage(png);
  if (image.width === size.width && image.height === size.height) return png;
  const canvas = createCanvas(size.width, size.height);
  const ctx = canvas.getContext('2d');
  ctx.imageSmoothingEnabled = true;
  ctx.imageSmoothingQuality = 'high';
  ctx.drawImage(image, 0, 0, size.width, size.height);
  return canvas.encode('png');
}

export function tesseractAvailable(): boolean {
  try {
    execFileSync('tesseract', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Upscaled first: Tesseract is tuned for ~300 dpi and reads 11-px glyphs badly at their size. */
export async function ocrPng(png: Buffer, upscale = 1): Promise<string> {
  let input = png;
  if (upscale !== 1) {
    const image = await loadImage(png);
    input = await resizePng(png, {
      width: Math.round(image.width * upscale),
      height: Math.round(image.height * upscale),
    });
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-ocr-'));
  const file = path.join(dir, 'page.png');
  try {
    fs.writeFileSync(file, input);
    return await new Promise<string>((resolve, reject) => {
      execFile(
        'tesseract',
        [file, '-', '--psm', '6'],
        {
          encoding: 'utf8',
          maxBuffer: 64 * 1024 * 1024,
          env: { ...process.env, OMP_THREAD_LIMIT: '1' },
        },
        (error, stdout) => (error ? reject(error) : resolve(stdout)),
      );
    });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
