import { Problem } from '../problem/problem';

/**
 * The UTF-8 length of `value`'s JSON text, counted with an explicit stack and without building
 * the text, stopping as soon as it passes `max` (then `max + 1` is returned). So measuring a
 * whole tree costs no second copy of it and no V8 string limit decides anything.
 */
export const jsonBytesUpTo = (value: unknown, max: number): number => {
  let total = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (total > max) return max + 1;
    if (Array.isArray(v)) {
      total += 2 + Math.max(0, v.length - 1);
      for (let i = v.length - 1; i >= 0; i--) stack.push(v[i] === undefined ? null : v[i]);
    } else if (v !== null && typeof v === 'object') {
      const entries = Object.entries(v).filter(([, x]) => x !== undefined);
      total += 2 + Math.max(0, entries.length - 1);
      for (const [k, x] of entries) {
        total += Buffer.byteLength(JSON.stringify(k)) + 1;
        stack.push(x);
      }
    } else {
      total += Buffer.byteLength(JSON.stringify(v) ?? 'null');
    }
  }
  return total > max ? max + 1 : total;
};

/**
 * An answer that cannot be paged (a tree, a replay's tree) is refused above ARBOR_ANSWER_MAX_BYTES
 * with `422 answer_too_large` rather than built: the refusal says how large the cap is and where
 * the same data can be read in pages.
 */
export const assertAnswerWithin = <T>(answer: T, max: number, pagedAlternative: string): T => {
  const bytes = jsonBytesUpTo(answer, max);
  if (bytes > max)
    throw new Problem(
      'answer_too_large',
      `The answer would be larger than ARBOR_ANSWER_MAX_BYTES (${max} bytes); read it in pages through ${pagedAlternative}`,
      { maxBytes: max },
    );
  return answer;
};
