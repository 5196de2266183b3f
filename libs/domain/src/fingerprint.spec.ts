import { canonicalJson, fingerprint } from './fingerprint';

describe('fingerprint', () => {
  it('ignores key order and undefined fields, and nothing else', () => {
    expect(canonicalJson({ b: 1, a: [{ y: 2, x: undefined }] })).toBe('{"a":[{"y":2}],"b":1}');
    expect(fingerprint({ a: 1, b: 'x' })).toBe(fingerprint({ b: 'x', a: 1 }));
    expect(fingerprint({ a: 1 })).not.toBe(fingerprint({ a: 2 }));
    expect(fingerprint(['a', 'b'])).not.toBe(fingerprint(['b', 'a']));
    expect(fingerprint({ a: 'x ' })).not.toBe(fingerprint({ a: 'x' }));
  });
});
