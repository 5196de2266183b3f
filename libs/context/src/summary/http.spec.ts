import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { failureDetail, retryAfterMs } from './http';

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

describe('failureDetail', () => {
  it("names the cause of a failed fetch: its message, else its code, else an aggregate's first", () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), {
      code: 'ECONNREFUSED',
    });
    expect(failureDetail(new TypeError('fetch failed', { cause: refused }))).toBe(
      'connect ECONNREFUSED 127.0.0.1:9',
    );
    const bare = Object.assign(new Error(''), { code: 'ECONNRESET' });
    expect(failureDetail(new TypeError('fetch failed', { cause: bare }))).toBe('ECONNRESET');
    const aggregate = new AggregateError([refused], '');
    expect(failureDetail(new TypeError('fetch failed', { cause: aggregate }))).toBe(
      'connect ECONNREFUSED 127.0.0.1:9',
    );
    expect(failureDetail('plain')).toBe('plain');
  });

  it('reads errors by shape, so an error from another realm keeps its cause', () => {
    const foreign = {
      name: 'TypeError',
      message: 'fetch failed',
      cause: { message: 'getaddrinfo ENOTFOUND x' },
    };
    expect(failureDetail(foreign)).toBe('getaddrinfo ENOTFOUND x');
  });

  it('says why a real fetch to a closed port failed', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const error = await fetch(`http://127.0.0.1:${port}/`).catch((e: unknown) => e);
    expect(failureDetail(error)).toBe(`connect ECONNREFUSED 127.0.0.1:${port}`);
  });
});
