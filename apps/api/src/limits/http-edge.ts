import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type LimitsConfig } from '@arbor/application';
import { Problem, type ProblemCode } from '../problem/problem';

/**
 * Fastify/Node options that bound a connection: header size, header and request (body) timeouts,
 * idle and keep-alive timeouts, requests per socket. A body sent at one byte a second is cut at
 * `requestTimeoutMs` with a 408; headers trickled in are cut at `headersTimeoutMs`.
 */
export const serverOptions = (limits: LimitsConfig) => ({
  requestTimeout: limits.requestTimeoutMs,
  connectionTimeout: limits.connectionTimeoutMs,
  keepAliveTimeout: limits.keepAliveTimeoutMs,
  maxRequestsPerSocket: limits.maxRequestsPerSocket,
  http: {
    maxHeaderSize: limits.maxHeaderBytes,
    headersTimeout: Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs),
    requestTimeout: limits.requestTimeoutMs,
    // Node checks the two timeouts above on this period (30 s by default): keep it well under them.
    connectionsCheckingInterval: Math.max(
      50,
      Math.min(1000, Math.floor(Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs) / 4)),
    ),
  },
});

/**
 * A whole HTTP/1.1 answer written straight to a socket, for errors raised before any request.
 * No request exists to carry an id, so the answer gets a fresh one (every answer has one).
 */
const rawProblem = (code: ProblemCode, detail: string): string => {
  const body = JSON.stringify(new Problem(code, detail).body());
  const status = new Problem(code).status;
  return (
    `HTTP/1.1 ${status} ${code}\r\n` +
    'Content-Type: application/problem+json\r\n' +
    'Cache-Control: no-store\r\n' +
    `X-Request-Id: ${randomUUID()}\r\n` +
    'Connection: close\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  );
};

/**
 * Node's `clientError` (what the HTTP parser refuses before a request exists): answered as
 * problem+json instead of Fastify's own JSON or a bare `400`.
 */
export const clientErrorHandler =
  (limits: LimitsConfig) =>
  (error: Error & { code?: string }, socket: Socket): void => {
    // As Node's own default: answer only while no answer has started on this socket.
    const pending = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (!socket.writable || pending?.headersSent === true) {
      socket.destroy();
      return;
    }
    let answer: string;
    switch (error.code) {
      case 'HPE_HEADER_OVERFLOW':
        answer = rawProblem(
          'headers_too_large',
          `The request headers exceed ${limits.maxHeaderBytes} bytes (ARBOR_MAX_HEADER_BYTES).`,
        );
        break;
      case 'ERR_HTTP_REQUEST_TIMEOUT':
        answer = rawProblem(
          'request_timeout',
          `The request did not arrive within ${limits.requestTimeoutMs} ms (ARBOR_REQUEST_TIMEOUT_MS).`,
        );
        break;
      case 'ECONNRESET':
      case 'EPIPE':
        socket.destroy();
        return;
      default:
        answer = rawProblem(
          'malformed_header',
          `The request could not be parsed as HTTP/1.1 (${error.code ?? 'parse error'}): a header ` +
            'name or value holds a forbidden character (e.g. NUL), or the framing is invalid.',
        );
    }
    socket.end(answer);
  };

/**
 * Open connections, in total and per client address. A connection over either bound is answered
 * `503 too_many_connections` and closed at once, before it can send anything.
 */
export const limitConnections = (server: http.Server, limits: LimitsConfig): void => {
  const perIp = new Map<string, number>();
  let total = 0;
  server.on('connection', (socket: Socket) => {
    const ip = socket.remoteAddress ?? '?';
    const mine = (perIp.get(ip) ?? 0) + 1;
    if (total + 1 > limits.maxConnections || mine > limits.maxConnectionsPerIp) {
      socket.end(
        rawProblem(
          'too_many_connections',
          total + 1 > limits.maxConnections
            ? `The server holds ${limits.maxConnections} connections (ARBOR_MAX_CONNECTIONS).`
            : `This address holds ${limits.maxConnectionsPerIp} connections (ARBOR_MAX_CONNECTIONS_PER_IP).`,
        ),
      );
      socket.destroySoon();
      return;
    }
    total++;
    perIp.set(ip, mine);
    socket.once('close', () => {
      total--;
      const left = (perIp.get(ip) ?? 1) - 1;
      if (left <= 0) perIp.delete(ip);
      else perIp.set(ip, left);
    });
  });
};

/**
 * Authentication before the body: an `onRequest` hook (it runs before Fastify reads or parses the
 * body) that answers 401 at once, closing the connection, so an unauthenticated client can make the
 * server neither buffer nor parse a byte of its body. The guards still run (and set the caller).
 */
export const authenticateBeforeBody = (
  fastify: FastifyInstance,
  decide: (request: FastifyRequest) => Problem | null | Promise<Problem | null>,
): void => {
  fastify.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done) => {
    void reply.header('cache-control', 'no-store');
    const answer = (problem: Problem | null): void => {
      if (problem === null) {
        done();
        return;
      }
      const hasBody =
        request.headers['content-length'] !== undefined ||
        request.headers['transfer-encoding'] !== undefined;
      if (hasBody) void reply.header('connection', 'close');
      if (problem.status === 401) void reply.header('www-authenticate', 'Bearer realm="arbor"');
      void reply
        .status(problem.status)
        .header('content-type', 'application/problem+json')
        .send(problem.body(request.url.split('?')[0]));
    };
    const decided = decide(request);
    if (decided instanceof Promise) {
      decided.then(answer, (error: unknown) =>
        done(error instanceof Error ? error : new Error(String(error))),
      );
      return;
    }
    answer(decided);
  });
};
