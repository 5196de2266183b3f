import fc from 'fast-check';
import { canonicalJson, fingerprint } from './fingerprint';

/** The recursive definition the iterative writer replaced (fine for shallow values). */
const recursive = (value: unknown): string => {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(recursive).join(',')}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${recursive(obj[k])}`).join(',')}}`;
};

describe('fingerprint', () => {
  it('ignores key order and undefined fields, and nothing else', () => {
    expect(canonicalJson({ b: 1, a: [{ y: 2, x: undefined }] })).toBe('{"a":[{"y":2}],"b":1}');
    expect(fingerprint({ a: 1, b: 'x' })).toBe(fingerprint({ b: 'x', a: 1 }));
    expect(fingerprint({ a: 1 })).not.toBe(fingerprint({ a: 2 }));
    expect(fingerprint(['a', 'b'])).not.toBe(fingerprint(['b', 'a']));
    expect(fingerprint({ a: 'x ' })).not.toBe(fingerprint({ a: 'x' }));
  });

  it('equals the recursive definition for any JSON value, and parses back to it', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        expect(canonicalJson(v)).toBe(recursive(v));
        expect(JSON.parse(canonicalJson(v))).toEqual(JSON.parse(JSON.stringify(v)));
      }),
      { numRuns: 300 },
    );
    expect(canonicalJson([1, undefined, { a: undefined, b: [] }])).toBe('[1,null,{"b":[]}]');
  });

  it('writes values nested 100,000 deep (no recursion: the verifier reads what JSON.parse reads)', () => {
    const depth = 100_000;
    const text = '{"a":['.repeat(depth) + '1' + ']}'.repeat(depth);
    const value: unknown = JSON.parse(text);
    expect(() => JSON.stringify(value)).toThrow(RangeError); // what a recursive writer hits
    expect(canonicalJson(value)).toBe(text);
  });
});
