/** Nothing is dropped or reordered: the chunks' pieces, concatenated, are the segments. */
import { countTextTokens } from '../tokens/text';
import { safeCut } from './serialize';

export interface Piece {
  text: string;
  tokens: number;
}

export const PIECE_SEPARATOR = '\n\n';

export const piece = (text: string): Piece => ({ text, tokens: countTextTokens(text) });

export const chunkText = (pieces: readonly Piece[]): string =>
  pieces.map((p) => p.text).join(PIECE_SEPARATOR);

/** Tokens of a chunk as `chunkText` joins it (an upper bound: BPE merges only lower it). */
export const chunkTokens = (pieces: readonly Piece[]): number =>
  pieces.reduce((sum, p) => sum + p.tokens, 0) + Math.max(0, pieces.length - 1);

function niceCut(text: string, guess: number): number {
  const floor = Math.floor(guess / 2);
  const newline = text.lastIndexOf('\n', guess - 1);
  if (newline >= floor && newline > 0) return newline + 1;
  const space = text.lastIndexOf(' ', guess - 1);
  if (space >= floor && space > 0) return space + 1;
  return safeCut(text, guess) || Math.min(text.length, 2);
}

export function splitHead(text: string, maxTokens: number): [Piece, Piece] {
  const whole = countTextTokens(text);
  if (whole <= maxTokens)
    return [
      { text, tokens: whole },
      { text: '', tokens: 0 },
    ];
  let guess = Math.max(1, Math.floor((maxTokens * text.length) / whole));
  for (;;) {
    const cut = niceCut(text, guess);
    const head = text.slice(0, cut);
    const tokens = countTextTokens(head);
    if (tokens <= maxTokens || cut <= 2) return [{ text: head, tokens }, piece(text.slice(cut))];
    guess = Math.max(1, Math.min(cut - 1, Math.floor(guess * 0.9)));
  }
}

export interface Taken {
  chunk: Piece[];
  rest: Piece[];
}

export function takeChunk(queue: readonly Piece[], budget: number): Taken {
  const chunk: Piece[] = [];
  let used = 0;
  let index = 0;
  while (index < queue.length) {
    const next = queue[index];
    const cost = next.tokens + (chunk.length > 0 ? 1 : 0);
    if (used + cost > budget) break;
    chunk.push(next);
    used += cost;
    index += 1;
  }
  if (chunk.length > 0 || queue.length === 0) return { chunk, rest: queue.slice(index) };
  const [head, tail] = splitHead(queue[0].text, budget);
  const rest = tail.text === '' ? queue.slice(1) : [tail, ...queue.slice(1)];
  return { chunk: [head], rest };
}
