import fc from 'fast-check';
import { layoutText, NEWLINE_CELL, WORD_WRAP_REACH, type Layout } from './layout';

const codePoints = (s: string): number => Array.from(s).length;

// Text with line breaks, long lines, astral characters and empty lines.
const textArb = fc
  .array(
    fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.constantFrom('\n', '\n\n', '😀', 'é', 'x'.repeat(75)),
      fc.string({ unit: 'grapheme', maxLength: 12 }),
    ),
    { maxLength: 30 },
  )
  .map((parts) => parts.join(''));

const gridArb = fc.record({
  columns: fc.integer({ min: 2, max: 30 }),
  rows: fc.integer({ min: 1, max: 12 }),
  mode: fc.constantFrom('flow' as const, 'flow-words' as const, 'lines' as const),
});

function joined(layout: Layout): string {
  return layout.pages.map((p) => p.text).join('');
}

/** What the rows show, read back: row cells, plus a line break after every uncontinued row. */
function readBack(layout: Layout): string {
  const rows = layout.pages.flatMap((p) => p.rows);
  if (layout.mode !== 'lines') return rows.map((r) => r.cells).join('');
  return rows.map((r, i) => r.cells + (r.continued || i === rows.length - 1 ? '' : '\n')).join('');
}

describe('layoutText', () => {
  it('loses and reorders nothing when uncapped: pages concatenate to the input', () => {
    fc.assert(
      fc.property(textArb, gridArb, (text, grid) => {
        const layout = layoutText(text, grid);
        expect(joined(layout)).toBe(text);
        expect(readBack(layout)).toBe(text);
        expect(layout.omitted.chars).toBe(0);
      }),
    );
  });

  it('never puts more than `columns` cells on a row (mark included) nor more than `rows` rows on a page', () => {
    fc.assert(
      fc.property(textArb, gridArb, (text, grid) => {
        const layout = layoutText(text, grid);
        for (const page of layout.pages) {
          expect(page.rows.length).toBeLessThanOrEqual(grid.rows);
          for (const row of page.rows) {
            const width = codePoints(row.cells) + (row.continued ? 1 : 0);
            expect(width).toBeLessThanOrEqual(grid.columns);
            if (grid.mode === 'lines') expect(row.cells.includes('\n')).toBe(false);
          }
        }
      }),
    );
  });

  it('with a page cap, keeps the head (or the tail) and declares exactly what was left out', () => {
    fc.assert(
      fc.property(
        textArb,
        gridArb,
        fc.integer({ min: 0, max: 3 }),
        fc.constantFrom('head' as const, 'tail' as const),
        (text, grid, maxPages, keep) => {
          const full = layoutText(text, grid);
          const capped = layoutText(text, { ...grid, maxPages, keep });
          expect(capped.pages.length).toBe(Math.min(maxPages, full.pages.length));
          const kept = joined(capped);
          const { start, end, chars } = capped.omitted;
          expect(chars).toBe(end - start);
          expect(kept.length + chars).toBe(text.length);
          if (keep === 'head') expect(kept + text.slice(start, end)).toBe(text);
          else expect(text.slice(start, end) + kept).toBe(text);
          capped.pages.forEach((p, i) => expect(p.index).toBe(i));
        },
      ),
    );
  });

  it('flow mode fills every row but the last, a line break taking one cell', () => {
    const layout = layoutText('ab\ncdef\ngh', { columns: 4, rows: 10 });
    expect(layout.pages[0].rows.map((r) => r.cells)).toEqual(['ab\nc', 'def\n', 'gh']);
    expect(layout.pages[0].rows[0].cells[2]).toBe(NEWLINE_CELL);
  });

  it('lines mode starts each source line on a row and marks hard wraps', () => {
    const layout = layoutText('abcdefg\nhi\n', { columns: 4, rows: 10, mode: 'lines' });
    expect(layout.pages[0].rows).toEqual([
      { cells: 'abc', continued: true },
      { cells: 'def', continued: true },
      { cells: 'g', continued: false },
      { cells: 'hi', continued: false },
      { cells: '', continued: false },
    ]);
  });

  it('a line exactly as wide as the row needs no continuation', () => {
    const layout = layoutText('abcd\nef', { columns: 4, rows: 10, mode: 'lines' });
    expect(layout.pages[0].rows.map((r) => r.continued)).toEqual([false, false]);
  });

  it('counts astral characters as one cell and never splits a surrogate pair', () => {
    const layout = layoutText('😀😀😀', { columns: 2, rows: 1 });
    expect(layout.pages.map((p) => p.text)).toEqual(['😀😀', '😀']);
  });

  it('refuses anything but text', () => {
    expect(() =>
      layoutText(Buffer.from('x') as unknown as string, { columns: 4, rows: 4 }),
    ).toThrow(TypeError);
  });

  it('refuses a grid too small to hold a continuation', () => {
    expect(() => layoutText('x', { columns: 1, rows: 4 })).toThrow(RangeError);
  });

  describe('flow-words', () => {
    const isBreak = (c: string | undefined) => c === ' ' || c === '\n';

    it('ends a row inside a word only when no space is within reach', () => {
      fc.assert(
        fc.property(textArb, fc.integer({ min: 2, max: 40 }), (text, columns) => {
          const layout = layoutText(text, { columns, rows: 1_000, mode: 'flow-words' });
          const rows = layout.pages.flatMap((p) => p.rows);
          let offset = 0;
          rows.forEach((row, r) => {
            offset += row.cells.length;
            if (r === rows.length - 1) return;
            const cells = Array.from(row.cells);
            if (cells.length < columns) {
              // Shortened: it ends right after a space or a line break.
              expect(isBreak(cells[cells.length - 1])).toBe(true);
              return;
            }
            const splitsWord = !isBreak(cells[columns - 1]) && !isBreak(text[offset]);
            if (splitsWord) {
              const reach = cells.slice(Math.max(0, columns - 1 - WORD_WRAP_REACH), columns - 1);
              expect(reach.some(isBreak)).toBe(false);
            }
          });
        }),
      );
    });

    it('moves a word that would be cut to the next row', () => {
      const layout = layoutText('alpha beta gamma', { columns: 8, rows: 5, mode: 'flow-words' });
      expect(layout.pages[0].rows.map((r) => r.cells)).toEqual(['alpha ', 'beta ', 'gamma']);
    });

    it('cuts a run with no space in reach as flow does', () => {
      const word = 'x'.repeat(40);
      const layout = layoutText(`a ${word}`, { columns: 30, rows: 5, mode: 'flow-words' });
      expect(layout.pages[0].rows.map((r) => r.cells)).toEqual([
        'a ' + 'x'.repeat(28),
        'x'.repeat(12),
      ]);
    });
  });
});
