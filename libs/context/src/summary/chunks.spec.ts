import fc from 'fast-check';
import { countTextTokens } from '../tokens/text';
import { chunkTokens, piece, splitHead, takeChunk, type Piece } from './chunks';

const segmentArb = fc.oneof(
  fc.string({ maxLength: 60 }),
  fc
    .array(fc.constantFrom('alpha ', 'beta\n', '{"k": 1}\n', 'λ ', '🙂', 'x'), { maxLength: 400 })
    .map((a) => a.join('')),
);

describe('splitHead', () => {
  it('returns the whole text when it fits', () => {
    const [head, rest] = splitHead('a short line', 100);
    expect(head.text).toBe('a short line');
    expect(rest.text).toBe('');
  });

  it('cuts at a line break when one is near', () => {
    const text = Array.from({ length: 200 }, (_, i) => `line number ${i}`).join('\n');
    const [head] = splitHead(text, 50);
    expect(head.text.endsWith('\n')).toBe(true);
    expect(head.tokens).toBeLessThanOrEqual(50);
  });

  it('gives a non-empty head within the budget, and head + rest is the text', () => {
    fc.assert(
      fc.property(segmentArb, fc.integer({ min: 8, max: 200 }), (text, max) => {
        const [head, rest] = splitHead(text, max);
        return (
          head.text + rest.text === text &&
          head.tokens === countTextTokens(head.text) &&
          head.tokens <= max &&
          (text === '' || head.text.length > 0)
        );
      }),
    );
  });
});

describe('takeChunk', () => {
  it('drains a queue into chunks within the budget, losing and reordering nothing', () => {
    fc.assert(
      fc.property(
        fc.array(segmentArb, { minLength: 1, maxLength: 20 }),
        fc.integer({ min: 16, max: 300 }),
        (segments, budget) => {
          let queue: Piece[] = segments.map(piece);
          const seen: string[] = [];
          let rounds = 0;
          while (queue.length > 0) {
            const { chunk, rest } = takeChunk(queue, budget);
            if (chunk.length === 0 || chunkTokens(chunk) > budget) return false;
            seen.push(...chunk.map((p) => p.text));
            queue = rest;
            rounds += 1;
            if (rounds > 10_000) return false;
          }
          return seen.join('') === segments.join('');
        },
      ),
    );
  });

  it('takes whole segments while they fit and leaves the next one whole', () => {
    const queue = ['one two three', 'four five six', 'seven eight nine'].map(piece);
    const budget = queue[0].tokens + queue[1].tokens + 1;
    const { chunk, rest } = takeChunk(queue, budget);
    expect(chunk.map((p) => p.text)).toEqual(['one two three', 'four five six']);
    expect(rest.map((p) => p.text)).toEqual(['seven eight nine']);
  });
});
