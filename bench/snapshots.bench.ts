/**
 * Snapshot density and legibility, per page shape, on a real session (docs/TARGETS.md).
 *
 *   npm run bench:snapshots [-- --pages 12 --ocr-pages 3 --upscale 2 --fixture PATH]
 *
 * For each shape: serialize the fixture's messages, render `--pages` pages, and report characters
 * per page, billed image tokens per page (the provider formula), the same characters as text
 * tokens (gpt-tokenizer o200k when installed, else chars/4), their ratio, pages per second, and
 * — when `tesseract` is on PATH — OCR character accuracy after the provider's resize.
 */
import * as path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { MessageInput } from '@arbor/domain/messages';
import { DENSER_SHAPE, defaultSnapshotShape } from '@arbor/context';
import { REAL_FIXTURES, REAL_PI } from '@arbor/fixtures';
import { activeBranchTurns, importSessionFile, sessionFiles } from '@arbor/importers';
import {
  effectiveGlyphPx,
  layoutText,
  renderPage,
  renderText,
  serializeMessages,
  SHAPE_IDS,
  SHAPES,
  tokensPerPage,
  type PageShape,
  type ShapeId,
} from '@arbor/snapshots';
import {
  characterAccuracy,
  normalizeForOcr,
  levenshtein,
  ocrPng,
  printedText,
  resizePng,
  tesseractAvailable,
} from '@arbor/snapshots/measure';
import {
  flagValue,
  fmt,
  machineLine,
  numberFlag,
  table,
  verdictLines,
  type Verdict,
} from './lib/report';

const argv = process.argv.slice(2);
const FIXTURE = flagValue(argv, 'fixture') ?? path.join(REAL_PI, 'large-session.jsonl');
const PAGES = numberFlag(argv, 'pages', 12);
const OCR_PAGES = numberFlag(argv, 'ocr-pages', 3);
const UPSCALE = numberFlag(argv, 'upscale', 2);
/** `--shapes a,b`: measure only these shape ids (default: every shape). */
const ONLY = flagValue(argv, 'shapes')
  ?.split(',')
  .filter((x) => x !== '');

// ---- the fixture, as Arbor imports it -------------------------------------------------------

/** The messages of the file's active branch, root → tip, as `arbor import` stores them. */
function readSession(file: string): MessageInput[] {
  return activeBranchTurns(importSessionFile(file).conversations[0]).flat();
}

const isObj = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

// ---- text tokens ------------------------------------------------------------------------------

type Counter = { name: string; count: (text: string) => number };

function textTokenCounter(): Counter {
  try {
    // Optional: present when another part of the project installed it.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const mod: unknown = require('gpt-tokenizer');
    if (isObj(mod) && typeof mod.countTokens === 'function') {
      const count = mod.countTokens as (t: string) => number;
      return { name: 'gpt-tokenizer (o200k)', count };
    }
  } catch {
    // fall through
  }
  return { name: 'chars/4 estimate', count: (t) => Math.ceil(t.length / 4) };
}

// ---- per shape --------------------------------------------------------------------------------

interface Row {
  shape: PageShape;
  pages: number;
  charsPerPage: number;
  imageTokens: number;
  textTokensPerPage: number;
  textTokensEstPerPage: number;
  pagesPerSecond: number;
  pngBytes: number;
  glyphPx: number;
  /** Against what the page prints (its rows): the figure the verdict reads. */
  ocr: number[];
  /** Against the page's source slice: every mid-word row wrap counts as an inserted space. */
  ocrSource: number[];
  ocrNoSpace: number[];
}

/** Accuracy over non-whitespace characters: Tesseract's word spacing left out. */
function nonSpaceAccuracy(source: string, ocr: string): number {
  const a = normalizeForOcr(source).replace(/ /g, '');
  const b = normalizeForOcr(ocr).replace(/ /g, '');
  return a.length === 0 ? 1 : Math.max(0, 1 - levenshtein(a, b) / a.length);
}

async function measureShape(
  shape: PageShape,
  text: string,
  counter: Counter,
  ocr: boolean,
): Promise<Row> {
  const t0 = process.hrtime.bigint();
  const { layout, pngs } = await renderText(text, shape, { maxPages: PAGES });
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const pages = layout.pages;
  const chars = pages.reduce((s, p) => s + p.text.length, 0);
  const textTokens = pages.reduce((s, p) => s + counter.count(p.text), 0);
  const accuracies: number[] = [];
  const againstSource: number[] = [];
  const noSpace: number[] = [];
  if (ocr) {
    const resized = shape.resize({ width: shape.width, height: shape.height });
    // Pages spread over the rendered run, so one odd page does not decide the figure.
    const step = Math.max(1, Math.floor(pages.length / OCR_PAGES));
    for (let i = 0; i < Math.min(OCR_PAGES, pages.length); i++) {
      const page = pages[i * step];
      const png = await resizePng(pngs[page.index], resized);
      const read = await ocrPng(png, UPSCALE);
      accuracies.push(characterAccuracy(printedText(page), read));
      againstSource.push(characterAccuracy(page.text, read));
      noSpace.push(nonSpaceAccuracy(page.text, read));
    }
  }
  return {
    shape,
    pages: pages.length,
    charsPerPage: chars / pages.length,
    imageTokens: tokensPerPage(shape),
    textTokensPerPage: textTokens / pages.length,
    textTokensEstPerPage: chars / pages.length / 4,
    pagesPerSecond: pages.length / seconds,
    pngBytes: pngs.reduce((sum, p) => sum + p.length, 0) / pngs.length,
    glyphPx: effectiveGlyphPx(shape),
    ocr: accuracies,
    ocrSource: againstSource,
    ocrNoSpace: noSpace,
  };
}

/**
 * Pages rendered one after another by a single caller (the throughput docs/TARGETS.md asks for), and
 * the worst event-loop delay seen meanwhile (what "without blocking the event loop" means).
 */
async function sustainedRate(
  shape: PageShape,
  text: string,
  pages: number,
): Promise<{ rate: number; maxLoopDelayMs: number; p99LoopDelayMs: number }> {
  const laid = layoutText(text, {
    columns: shape.columns,
    rows: shape.rows,
    mode: shape.layout,
    maxPages: pages,
  });
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  const t0 = process.hrtime.bigint();
  for (const page of laid.pages) await renderPage(page, shape);
  const rate = laid.pages.length / (Number(process.hrtime.bigint() - t0) / 1e9);
  delay.disable();
  return { rate, maxLoopDelayMs: delay.max / 1e6, p99LoopDelayMs: delay.percentile(99) / 1e6 };
}

const CORPUS = REAL_FIXTURES;

/**
 * Density over every real session file: the text tokens of all full pages (a last, partial page
 * would flatter nothing and penalize short files) ÷ their billed image tokens, per shape.
 */
function corpusDensity(
  shapes: readonly PageShape[],
  counter: Counter,
): { files: number; shapes: { id: string; ratio: number; pages: number }[] } {
  const files = sessionFiles(CORPUS);
  const totals = shapes.map((shape) => ({ shape, text: 0, billed: 0, pages: 0 }));
  for (const file of files) {
    const text = serializeMessages(readSession(file));
    for (const t of totals) {
      const { shape } = t;
      const laid = layoutText(text, {
        columns: shape.columns,
        rows: shape.rows,
        mode: shape.layout,
      });
      for (const page of laid.pages.slice(0, -1)) {
        t.text += counter.count(page.text);
        t.billed += tokensPerPage(shape);
        t.pages += 1;
      }
    }
  }
  return {
    files: files.length,
    shapes: totals.map((t) => ({ id: t.shape.id, ratio: t.text / t.billed, pages: t.pages })),
  };
}

async function main(): Promise<void> {
  console.log(`# bench:snapshots\n${machineLine()}`);
  const messages = readSession(FIXTURE);
  const text = serializeMessages(messages);
  const counter = textTokenCounter();
  const ocr = tesseractAvailable();
  console.log(
    `fixture: ${path.relative(process.cwd(), FIXTURE)} — ${messages.length} messages, ` +
      `${fmt(text.length)} serialized chars; text tokens: ${counter.name}; ` +
      (ocr
        ? `OCR: tesseract --psm 6 on ${OCR_PAGES} page(s) per shape after the provider resize, upscaled ${UPSCALE}× for Tesseract`
        : 'OCR: skipped (tesseract not on PATH; apt-get install -y tesseract-ocr)'),
  );
  // Start past the first pages so every shape is measured on the same, typical, stretch.
  const body = text.slice(Math.min(20_000, Math.floor(text.length / 10)));

  const rows: Row[] = [];
  const ids = ONLY === undefined ? SHAPE_IDS : SHAPE_IDS.filter((id) => ONLY.includes(id));
  for (const id of ids) rows.push(await measureShape(SHAPES[id], body, counter, ocr));

  console.log(
    '\n' +
      table(
        [
          'shape',
          'px',
          'grid',
          'glyph px',
          'chars/page',
          'img tok/page',
          'text tok/page',
          'ratio',
          'ratio (chars/4)',
          'pages/s',
          'PNG KB',
          'OCR acc (printed rows)',
          'OCR acc (source slice)',
          'OCR acc (no spaces)',
        ],
        rows.map((r) => [
          r.shape.id,
          `${r.shape.width}×${r.shape.height}`,
          `${r.shape.columns}×${r.shape.rows}`,
          fmt(r.glyphPx, 1),
          fmt(r.charsPerPage, 0),
          fmt(r.imageTokens, 0),
          fmt(r.textTokensPerPage, 0),
          `${fmt(r.textTokensPerPage / r.imageTokens, 2)}×`,
          `${fmt(r.textTokensEstPerPage / r.imageTokens, 2)}×`,
          fmt(r.pagesPerSecond, 1),
          fmt(r.pngBytes / 1024, 0),
          r.ocr.length ? r.ocr.map((a) => fmt(a * 100, 2)).join(' ') : 'n/a',
          r.ocrSource.length ? r.ocrSource.map((a) => fmt(a * 100, 2)).join(' ') : 'n/a',
          r.ocrNoSpace.length ? r.ocrNoSpace.map((a) => fmt(a * 100, 2)).join(' ') : 'n/a',
        ]),
      ),
  );
  console.log(
    '\nratio = text tokens of the page’s characters ÷ billed image tokens of the page ' +
      '(= characters per billed token, image vs text).\n' +
      'OCR accuracy = 1 − Levenshtein / length on whitespace-normalized text, against what the ' +
      'page prints (its rows; the verdict) and against its source slice (a mid-word row wrap ' +
      'then counts as an inserted space); "no spaces" leaves whitespace out.',
  );

  const {
    rate: sustained,
    maxLoopDelayMs,
    p99LoopDelayMs,
  } = await sustainedRate(SHAPES.claude, body, Math.max(PAGES, 20));
  console.log(
    `sustained render+encode, one caller, claude shape: ${fmt(sustained, 1)} pages/s; ` +
      `event-loop delay meanwhile p99 ${fmt(p99LoopDelayMs, 1)} ms, max ${fmt(maxLoopDelayMs, 1)} ms ` +
      '(the synchronous part is drawing one page; compression runs on the thread pool)',
  );

  // The targets are for the shapes Claude and OpenAI models get by default.
  const defaults = [
    defaultSnapshotShape('anthropic', 'claude-sonnet-4-5').name,
    defaultSnapshotShape('openai-chat', 'gpt-4o').name,
  ];
  console.log(`default shapes: ${defaults.join(', ')} (claude-sonnet-4-5, gpt-4o)`);
  // The defaults and their denser companions (the oldest stretch of a foveated snapshot).
  const companions = defaults.map((id) => DENSER_SHAPE[id]).filter((id) => id !== undefined);
  const corpus = corpusDensity(
    [...defaults, ...companions].map((id) => SHAPES[id as ShapeId]),
    counter,
  );
  console.log(
    `\ndensity over every session in ${path.relative(process.cwd(), CORPUS)} (${corpus.files} ` +
      'files; full pages only): ' +
      corpus.shapes.map((c) => `${c.id} ${fmt(c.ratio, 2)}× on ${c.pages} pages`).join(', '),
  );
  const verdicts: Verdict[] = [];
  for (const id of defaults) {
    const r = rows.find((x) => x.shape.id === id);
    if (r === undefined) continue; // not measured (--shapes)
    const ratio = r.textTokensPerPage / r.imageTokens;
    verdicts.push({
      target: `${id} density ≥ 3×`,
      measured: `${fmt(ratio, 2)}×`,
      pass: ratio >= 3,
    });
    const wide = corpus.shapes.find((c) => c.id === id);
    if (wide)
      verdicts.push({
        target: `${id} density ≥ 3× over every real session`,
        measured: `${fmt(wide.ratio, 2)}×`,
        pass: wide.ratio >= 3,
      });
    if (r.ocr.length) {
      const mean = r.ocr.reduce((a, b) => a + b, 0) / r.ocr.length;
      const meanNoSpace = r.ocrNoSpace.reduce((a, b) => a + b, 0) / r.ocrNoSpace.length;
      const meanSource = r.ocrSource.reduce((a, b) => a + b, 0) / r.ocrSource.length;
      verdicts.push({
        target: `${id} OCR accuracy ≥ 98%`,
        measured: `${fmt(mean * 100, 2)}% mean, worst ${fmt(Math.min(...r.ocr) * 100, 2)}% (against the source slice: ${fmt(meanSource * 100, 2)}%; non-space characters: ${fmt(meanNoSpace * 100, 2)}%)`,
        pass: mean >= 0.98,
      });
    }
  }
  verdicts.push({
    target: 'render ≥ 10 pages/s',
    measured: `${fmt(sustained, 1)} pages/s`,
    pass: sustained >= 10,
  });
  console.log('\n' + verdictLines('snapshots', verdicts));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
