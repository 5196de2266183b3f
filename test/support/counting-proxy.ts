/**
 * A plain HTTP proxy in front of a server that records each request it forwards (method and
 * path), so a test can count what a client really sent over the wire.
 */
import http from 'node:http';
import { type AddressInfo } from 'node:net';

export interface CountingProxy {
  baseUrl: string;
  /** `METHOD /path` of every request forwarded, in arrival order. */
  requests: string[];
  close(): Promise<void>;
}

export const startCountingProxy = async (target: () => string): Promise<CountingProxy> => {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    const to = new URL(req.url ?? '/', target());
    const out = http.request(
      to,
      { method: req.method, headers: { ...req.headers, host: to.host } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
