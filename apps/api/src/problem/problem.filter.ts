import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  InvalidStreamNameError,
  StoreFullError,
  StoreUnavailableError,
  WrongExpectedVersionError,
} from '@arbor/event-store';
import { AppError } from '@arbor/application';
import { Problem } from './problem';

interface ErrorWithCode {
  code?: unknown;
  statusCode?: unknown;
  message?: unknown;
}

/**
 * The turn rules name paths inside the commit body (`messages[1].content[0]`, `parentId`); over
 * HTTP they carry the `body.` prefix `validation_failed`'s `errors` carry, so one path reader
 * serves both.
 */
const bodyPaths = (code: string, details: Record<string, unknown>): Record<string, unknown> => {
  const violations = details.violations;
  if (code !== 'invalid_turn' || !Array.isArray(violations)) return details;
  return {
    ...details,
    violations: violations.map((v: unknown) =>
      typeof v === 'object' && v !== null && typeof (v as { path?: unknown }).path === 'string'
        ? { ...v, path: `body.${(v as { path: string }).path}` }
        : v,
    ),
  };
};

/** Maps anything thrown to a problem; pure so it can be tested without a server. */
export const toProblem = (error: unknown): Problem => {
  if (error instanceof Problem) return error;
  // The application layer's errors: the catalogue (PROBLEM_CODES) is the one code → status table.
  if (error instanceof AppError) {
    return new Problem(error.code, error.detail, bodyPaths(error.code, { ...error.details }));
  }
  if (error instanceof WrongExpectedVersionError) {
    return new Problem('concurrency_conflict', 'A concurrent write to this conversation won.');
  }
  if (error instanceof InvalidStreamNameError) return new Problem('not_found');
  if (error instanceof StoreFullError) {
    return new Problem('insufficient_storage', 'The database or disk is full.');
  }
  if (error instanceof StoreUnavailableError) return new Problem('store_unavailable');
  const e = (typeof error === 'object' && error !== null ? error : {}) as ErrorWithCode;
  switch (e.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new Problem('payload_too_large', 'The request body exceeds the configured limit.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new Problem(
        'unsupported_media_type',
        'Request bodies are JSON: send Content-Type: application/json.',
      );
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new Problem(
        'uri_too_long',
        'A path segment is longer than 512 characters (ids are at most 128).',
      );
    case 'FST_ERR_BAD_URL':
      return new Problem('validation_failed', 'The path is not a valid URL.');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new Problem('malformed_json', 'The body is empty.');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new Problem('malformed_json');
    case 'SQLITE_FULL':
      return new Problem('insufficient_storage', 'The database or disk is full.');
    case 'SQLITE_BUSY':
    case 'SQLITE_IOERR':
    case 'SQLITE_READONLY':
    case 'SQLITE_CANTOPEN':
      return new Problem('store_unavailable', 'The event store could not complete the write.');
  }
  if (typeof e.code === 'string' && e.code.startsWith('SQLITE_IOERR')) {
    return new Problem('store_unavailable', 'The event store could not complete the write.');
  }
  if (error instanceof SyntaxError && e.statusCode === 400) return new Problem('malformed_json');
  if (error instanceof HttpException) {
    const status = error.getStatus();
    if (status === 404) return new Problem('not_found');
    if (status === 413) return new Problem('payload_too_large');
    if (status === 415) return new Problem('unsupported_media_type');
    // Nest wraps Fastify's body-parser errors into plain HttpExceptions, dropping their codes.
    if (status === 400 && /JSON|Body cannot be empty/i.test(error.message)) {
      return new Problem('malformed_json', error.message);
    }
    if (status === 400) return new Problem('validation_failed', error.message);
    if (status === 401) return new Problem('unauthorized');
    if (status === 403) return new Problem('forbidden');
  }
  if (typeof e.statusCode === 'number' && e.statusCode === 400) {
    return new Problem('malformed_json', typeof e.message === 'string' ? e.message : undefined);
  }
  return new Problem('internal_error');
};

const sendProblem = (reply: FastifyReply, request: FastifyRequest, problem: Problem): void => {
  if (problem.status === 401) void reply.header('www-authenticate', 'Bearer realm="arbor"');
  // A refusal that says when to come back says it in the header too (RFC 9110 Retry-After).
  const retryAfter = problem.extensions.retryAfterSeconds;
  if (typeof retryAfter === 'number') void reply.header('retry-after', String(retryAfter));
  // Router errors (frameworkErrors) are answered before the onRequest hook that sets the id.
  void reply
    .status(problem.status)
    .header('x-request-id', request.id)
    .header('cache-control', 'no-store')
    .header('content-type', 'application/problem+json')
    .send(problem.body(request.url.split('?')[0]));
};

/**
 * Fastify's `frameworkErrors`: errors its router raises before any route (and so before Nest's
 * filter) runs — a path parameter over `maxParamLength` (414), a malformed URL (400). Without
 * it Fastify answers them with its own plain JSON.
 */
export const frameworkErrors = (error: Error, request: FastifyRequest, reply: FastifyReply): void =>
  sendProblem(reply, request, toProblem(error));

@Catch()
export class ProblemFilter implements ExceptionFilter {
  private readonly logger = new Logger('ProblemFilter');

  catch(error: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const reply = ctx.getResponse<FastifyReply>();
    const request = ctx.getRequest<FastifyRequest>();
    const problem = toProblem(error);
    if (problem.status >= 500) {
      this.logger.error(
        `${request.method} ${request.url} → ${problem.code}`,
        error instanceof Error ? error.stack : String(error),
      );
    }
    sendProblem(reply, request, problem);
  }
}
