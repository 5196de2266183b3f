/** Pure layout, one code point per cell (the modes: README.md). */

export type LayoutMode = 'flow' | 'flow-words' | 'lines';

/** `flow-words`: how far back (in cells) a row end looks for a space to break at. */
export const WORD_WRAP_REACH = 16;

export interface LayoutOptions {
  columns: number;
  rows: number;
  mode?: LayoutMode;
  /** At most this many pages; the rest is reported in `omitted`. Default: no cap. */
  maxPages?: number;
  keep?: 'head' | 'tail';
}

export type Cell = string;
export const NEWLINE_CELL = '\n';

export interface Row {
  cells: string;
  continued: boolean;
}

export interface Page {
  index: number;
  rows: Row[];
  /** The exact slice of the input this page carries: input.slice(start, end). */
  start: number;
  end: number;
  text: string;
}

export interface Omitted {
  /** UTF-16 code units of the input that are on no page. */
  chars: number;
  start: number;
  end: number;
}

export interface Layout {
  pages: Page[];
  columns: number;
  rows: number;
  mode: LayoutMode;
  omitted: Omitted;
}

interface PlacedRow extends Row {
  start: number;
  end: number;
}

function assertGrid(columns: number, rows: number): void {
  if (!Number.isInteger(columns) || columns < 2) throw new RangeError('columns must be ≥ 2');
  if (!Number.isInteger(rows) || rows < 1) throw new RangeError('rows must be ≥ 1');
}

const isBreak = (code: number | undefined): boolean => code === 0x20 || code === 0x0a;

function flowRows(text: string, columns: number, words: boolean): PlacedRow[] {
  const rows: PlacedRow[] = [];
  let start = 0;
  let count = 0;
  const ends: number[] = [];
  let i = 0;
  while (i < text.length) {
    const cp = text.codePointAt(i) as number;
    i += cp > 0xffff ? 2 : 1;
    count += 1;
    if (words) ends.push(i);
    if (count === columns) {
      let end = i;
      if (
        words &&
        i < text.length &&
        !isBreak(text.charCodeAt(i - 1)) &&
        !isBreak(text.charCodeAt(i))
      ) {
        for (let k = ends.length - 2; k >= Math.max(0, ends.length - 1 - WORD_WRAP_REACH); k--) {
          if (isBreak(text.charCodeAt(ends[k] - 1))) {
            end = ends[k];
            break;
          }
        }
      }
      rows.push({ cells: text.slice(start, end), continued: false, start, end });
      start = end;
      i = end;
      count = 0;
      ends.length = 0;
    }
  }
  if (count > 0) rows.push({ cells: text.slice(start), continued: false, start, end: text.length });
  return rows;
}

function lineRows(text: string, columns: number): PlacedRow[] {
  const rows: PlacedRow[] = [];
  let lineStart = 0;
  while (lineStart <= text.length) {
    const nl = text.indexOf('\n', lineStart);
    const lineEnd = nl === -1 ? text.length : nl;
    const consumedEnd = nl === -1 ? text.length : nl + 1;
    const line = text.slice(lineStart, lineEnd);
    const points = Array.from(line);
    if (points.length <= columns) {
      rows.push({ cells: line, continued: false, start: lineStart, end: consumedEnd });
    } else {
      let offset = lineStart;
      for (let p = 0; p < points.length; p += columns - 1) {
        const piece = points.slice(p, p + columns - 1).join('');
        const last = p + columns - 1 >= points.length;
        const end = last ? consumedEnd : offset + piece.length;
        rows.push({ cells: piece, continued: !last, start: offset, end });
        offset += piece.length;
      }
    }
    if (nl === -1) break;
    lineStart = nl + 1;
  }
  return rows;
}

function paginate(rows: PlacedRow[], perPage: number, text: string): Page[] {
  const pages: Page[] = [];
  for (let r = 0; r < rows.length; r += perPage) {
    const chunk = rows.slice(r, r + perPage);
    const start = chunk[0].start;
    const end = chunk[chunk.length - 1].end;
    pages.push({
      index: pages.length,
      rows: chunk.map(({ cells, continued }) => ({ cells, continued })),
      start,
      end,
      text: text.slice(start, end),
    });
  }
  return pages;
}

function reindex(pages: Page[]): Page[] {
  return pages.map((p, index) => ({ ...p, index }));
}

export function layoutText(text: string, options: LayoutOptions): Layout {
  if (typeof text !== 'string') throw new TypeError('layoutText takes text only');
  const { columns, rows } = options;
  assertGrid(columns, rows);
  const mode = options.mode ?? 'flow';
  const placed =
    text.length === 0
      ? []
      : mode === 'lines'
        ? lineRows(text, columns)
        : flowRows(text, columns, mode === 'flow-words');
  const all = paginate(placed, rows, text);
  const cap = options.maxPages ?? Infinity;
  if (all.length <= cap) {
    return {
      pages: all,
      columns,
      rows,
      mode,
      omitted: { chars: 0, start: text.length, end: text.length },
    };
  }
  if (options.keep === 'tail') {
    const kept = all.slice(all.length - cap);
    const start = 0;
    const end = kept.length > 0 ? kept[0].start : text.length;
    return {
      pages: reindex(kept),
      columns,
      rows,
      mode,
      omitted: { chars: end - start, start, end },
    };
  }
  const kept = all.slice(0, cap);
  const start = kept.length > 0 ? kept[kept.length - 1].end : 0;
  return {
    pages: kept,
    columns,
    rows,
    mode,
    omitted: { chars: text.length - start, start, end: text.length },
  };
}

export function countPages(
  text: string,
  options: Omit<LayoutOptions, 'maxPages' | 'keep'>,
): number {
  return layoutText(text, options).pages.length;
}
