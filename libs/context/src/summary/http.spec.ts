import { retryAfterMs } from './http';

const headers = (entries: Record<string, string>): Headers => new Headers(entries);

describe('retryAfterMs', () => {
  it('prefers retry-after-ms, in milliseconds', () => {
    expect(retryAfterMs(headers({ 'retry-after-ms': '250', 'retry-after': '9' }))).toBe(250);
  });

  it('reads retry-after as seconds, fractions included', () => {
    expect(retryAfterMs(headers({ 'retry-after': '2' }))).toBe(2000);
    expect(retryAfterMs(headers({ 'retry-after': '0.5' }))).toBe(500);
  });

  it('reads retry-after as an HTTP date, relative to now, never negative', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(retryAfterMs(headers({ 'retry-after': 'Wed, 01 Jan 2025 00:00:03 GMT' }), now)).toBe(
      3000,
    );
    expect(retryAfterMs(headers({ 'retry-after': 'Tue, 31 Dec 2024 23:59:00 GMT' }), now)).toBe(0);
  });

  it('is undefined without a usable hint', () => {
    expect(retryAfterMs(headers({}))).toBeUndefined();
    expect(retryAfterMs(headers({ 'retry-after': 'soon' }))).toBeUndefined();
    expect(retryAfterMs(headers({ 'retry-after-ms': 'x' }))).toBeUndefined();
  });
});
