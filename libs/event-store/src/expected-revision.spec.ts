import { matchesExpectedRevision, nextRevision } from './expected-revision';

describe('matchesExpectedRevision', () => {
  it.each([
    ['any', 'no_stream', true],
    ['any', 3n, true],
    ['no_stream', 'no_stream', true],
    ['no_stream', 0n, false],
    ['stream_exists', 'no_stream', false],
    ['stream_exists', 0n, true],
    [2n, 2n, true],
    [2n, 1n, false],
    [0n, 'no_stream', false],
  ] as const)('expected %s at %s → %s', (expected, current, ok) => {
    expect(matchesExpectedRevision(expected, current)).toBe(ok);
  });

  it('computes the next revision from 0', () => {
    expect(nextRevision('no_stream', 1)).toBe(0n);
    expect(nextRevision(4n, 3)).toBe(7n);
  });
});
