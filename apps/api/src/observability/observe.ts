import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type MetricsService, type RequestSpan, startRequestSpan } from '@arbor/application';
import { type ArborRequest } from '../auth/caller';

const START = Symbol('arbor.start');
const SPAN = Symbol('arbor.span');
type Timed = FastifyRequest & { [START]?: bigint; [SPAN]?: RequestSpan };

/**
 * Per request: `X-Request-Id` on every answer (set on the raw response first, so even answers
 * written by a hook, a guard or a hijacked stream carry it), the request counter and latency
 * histogram by route template and status, and one access-log line (through the request's
 * logger, so it carries the request id).
 * Registered before every other `onRequest` hook.
 */
export const observeRequests = (fastify: FastifyInstance, metrics: MetricsService): void => {
  fastify.addHook('onRequest', (request: Timed, reply: FastifyReply, done) => {
    request[START] = process.hrtime.bigint();
    reply.raw.setHeader('x-request-id', request.id);
    // With OTEL_* set: a server span, active for the rest of the request (null otherwise).
    const span = startRequestSpan(request.method, request.id);
    if (span === null) {
      done();
      return;
    }
    request[SPAN] = span;
    span.run(done);
  });
  fastify.addHook('onResponse', (request: Timed, reply: FastifyReply, done) => {
    const started = request[START];
    const seconds = started === undefined ? 0 : Number(process.hrtime.bigint() - started) / 1e9;
    const route = request.routeOptions.url ?? 'unmatched';
    const labels = { method: request.method, route, status: String(reply.statusCode) };
    metrics.httpRequests.inc(labels);
    metrics.httpDuration.observe(labels, seconds);
    const caller = (request as ArborRequest).caller;
    request[SPAN]?.end(
      route,
      reply.statusCode,
      caller !== undefined && caller.tenantId !== '' ? caller.tenantId : null,
    );
    request.log.info(
      {
        method: request.method,
        route,
        status: reply.statusCode,
        ms: Math.round(seconds * 1e6) / 1e3,
        ...(caller !== undefined && caller.tenantId !== '' ? { tenantId: caller.tenantId } : {}),
      },
      'request',
    );
    done();
  });
};
