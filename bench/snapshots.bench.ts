/**
 * Snapshot density and legibility, per page shape, on a real session (SPEC §8).
 *
 *   npm run bench:snapshots [-- --pages 8 --ocr-pages 2 --upscale 2 --fixture PATH]
 *
 * For each shape: serialize the fixture's messages, render `--pages` pages, and report characters
 * per page, billed image tokens per page (the provider formula), the same characters as text
 * tokens (gpt-tokenizer o200k when installed, else chars/4), their ratio, pages per second, and
 * — when `tesseract` is on PATH — OCR character accuracy after the provider's resize.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Block, Message, ToolResultContentBlock } from '@arbor/domain/messages';
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
} from '@arbor/snapshots';
import { characterAccuracy, ocrPng, resizePng, tesseractAvailable } from '@arbor/snapshots/measure';
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
const FIXTURE =
  flagValue(argv, 'fixture') ??
  path.resolve(__dirname, '../../shared/fixtures/real/pi/large-session.jsonl');
const PAGES = numberFlag(argv, 'pages', 8);
const OCR_PAGES = numberFlag(argv, 'ocr-pages', 2);
const UPSCALE = numberFlag(argv, 'upscale', 2);

// ---- a small reader for pi session files (format v1) -----------------------------------------

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function piBlock(b: Json): Block | null {
  switch (b.type) {
    case 'text':
      return { type: 'text', text: str(b.text) };
    case 'thinking':
      return { type: 'thinking', thinking: str(b.thinking), signature: str(b.thinkingSignature) };
    case 'toolCall':
      return { type: 'tool_use', id: str(b.id), name: str(b.name), input: b.arguments ?? {} };
    case 'image':
      return {
        type: 'image',
        source: { type: 'base64', media_type: 'image/png', data: str(b.data) },
      };
    default:
      return null;
  }
}

function piMessage(m: Json, n: number): Message | null {
  const content = Array.isArray(m.content) ? m.content.filter(isObj) : [];
  const base = { id: `m${n}`, parentId: n ? `m${n - 1}` : null, turnId: `t${n}`, createdAt: '' };
  if (m.role === 'toolResult') {
    const parts = content
      .map(piBlock)
      .filter((b): b is ToolResultContentBlock => b?.type === 'text' || b?.type === 'image');
    const result: Block = {
      type: 'tool_result',
      tool_use_id: str(m.toolCallId),
      content: parts,
      ...(m.isError === true ? { is_error: true } : {}),
    };
    return { ...base, role: 'user', content: [result] };
  }
  if (m.role !== 'user' && m.role !== 'assistant') return null;
  const blocks = content.map(piBlock).filter((b): b is Block => b !== null);
  return { ...base, role: m.role, content: blocks };
}

function readPiSession(file: string): Message[] {
  const messages: Message[] = [];
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const record: unknown = JSON.parse(line);
    if (!isObj(record) || record.type !== 'message' || !isObj(record.message)) continue;
    const m = piMessage(record.message, messages.length);
    if (m) messages.push(m);
  }
  return messages;
}

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
  glyphPx: number;
  ocr: number[];
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
  if (ocr) {
    const resized = shape.resize({ width: shape.width, height: shape.height });
    for (const page of pages.slice(0, OCR_PAGES)) {
      const png = await resizePng(pngs[page.index], resized);
      accuracies.push(characterAccuracy(page.text, await ocrPng(png, UPSCALE)));
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
    glyphPx: effectiveGlyphPx(shape),
    ocr: accuracies,
  };
}

/** Pages rendered one after another by a single caller: the throughput SPEC §8 asks for. */
async function sustainedRate(shape: PageShape, text: string, pages: number): Promise<number> {
  const laid = layoutText(text, { columns: shape.columns, rows: shape.rows, maxPages: pages });
  const t0 = process.hrtime.bigint();
  for (const page of laid.pages) await renderPage(page, shape);
  return laid.pages.length / (Number(process.hrtime.bigint() - t0) / 1e9);
}

async function main(): Promise<void> {
  console.log(`# bench:snapshots\n${machineLine()}`);
  const messages = readPiSession(FIXTURE);
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
  for (const id of SHAPE_IDS) rows.push(await measureShape(SHAPES[id], body, counter, ocr));

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
          'OCR acc',
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
          r.ocr.length ? r.ocr.map((a) => `${fmt(a * 100, 2)}%`).join(' ') : 'n/a',
        ]),
      ),
  );
  console.log(
    '\nratio = text tokens of the page’s characters ÷ billed image tokens of the page ' +
      '(= characters per billed token, image vs text).',
  );

  const sustained = await sustainedRate(SHAPES.claude, body, PAGES);
  console.log(`sustained render+encode, one caller, claude shape: ${fmt(sustained, 1)} pages/s`);

  const verdicts: Verdict[] = [];
  for (const id of ['claude', 'openai-tile'] as const) {
    const r = rows.find((x) => x.shape.id === id) as Row;
    const ratio = r.textTokensPerPage / r.imageTokens;
    verdicts.push({
      target: `${id} density ≥ 3×`,
      measured: `${fmt(ratio, 2)}×`,
      pass: ratio >= 3,
    });
    if (r.ocr.length) {
      const worst = Math.min(...r.ocr);
      verdicts.push({
        target: `${id} OCR accuracy ≥ 98%`,
        measured: `${fmt(worst * 100, 2)}% (worst page)`,
        pass: worst >= 0.98,
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
