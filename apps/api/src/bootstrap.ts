import 'reflect-metadata';
import { type DynamicModule, Module, RequestMethod } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { Logger, LoggerModule } from 'nestjs-pino';
import { type DestinationStream, type Logger as PinoLoggerInstance } from 'pino';
import { buildOpenApiDocument } from '@arbor/contract';
import { AppModule, type StoreFactory } from './app.module';
import { type ArborConfig } from '@arbor/application';
import { protectDocs, serveConsole } from './console/serve-console';
import { frameworkErrors } from './problem/problem.filter';
import { Problem } from './problem/problem';
import { authorizationHeaderCount, bearerToken } from './auth/bearer';
import { safeEqual } from '@arbor/tenancy';
import { TenantDirectoryService } from '@arbor/application';
import {
  authenticateBeforeBody,
  clientErrorHandler,
  limitConnections,
  serverOptions,
} from './limits/http-edge';
import { installJsonBodyParser } from './limits/json-body-parser';
import { Idempotency } from './idempotency/idempotency';
import { MetricsService, RateLimiterService } from '@arbor/application';
import { rateLimitRequests } from './limits/rate-limit-hook';
import { requestIdOf } from './observability/request-id';
import { observeRequests } from './observability/observe';
import { fastifyLogging, serviceLogger } from './observability/logger';

/** The app and the logging around it: Nest's loggers write through the request's pino child. */
@Module({})
class ArborServer {
  static forRoot(
    config: ArborConfig,
    storeFactory: StoreFactory | undefined,
    log: PinoLoggerInstance,
  ): DynamicModule {
    return {
      module: ArborServer,
      imports: [
        AppModule.forRoot(config, storeFactory),
        // `useExisting`: the request's logger is Fastify's (below), so hooks and handlers share it.
        LoggerModule.forRoot({
          pinoHttp: { logger: log },
          useExisting: true,
          forRoutes: [{ path: '{*path}', method: RequestMethod.ALL }],
        }),
      ],
    };
  }
}

export interface AppOptions {
  /** Where the log lines go (default stdout). */
  logDestination?: DestinationStream;
}

/** Built once from @arbor/contract (the same schemas the controllers validate with). */
let openApi: OpenAPIObject | undefined;
export const openApiDocument = (): OpenAPIObject =>
  (openApi ??= buildOpenApiDocument() as OpenAPIObject);

/** Builds the app (not listening) so tests and the CLI share one wiring. */
export const createApp = async (
  config: ArborConfig,
  storeFactory?: StoreFactory,
  options: AppOptions = {},
): Promise<NestFastifyApplication> => {
  const log = serviceLogger(config.logLevel, options.logDestination);
  const adapter = new FastifyAdapter({
    ...fastifyLogging(log),
    bodyLimit: config.bodyLimitBytes,
    routerOptions: { maxParamLength: 512 },
    // X-Request-Id: the caller's when sane, else a fresh UUID (observability/request-id.ts).
    genReqId: requestIdOf,
    requestIdHeader: false,
    frameworkErrors,
    ...serverOptions(config.limits),
    clientErrorHandler: clientErrorHandler(config.limits),
  });
  // Bodies are JSON only. Nest's own parsers (JSON + urlencoded) are off (`bodyParser: false`), so
  // Fastify's built-in JSON parser reads application/json; its text/plain parser goes too. Any
  // other content type is then FST_ERR_CTP_INVALID_MEDIA_TYPE → 415 unsupported_media_type.
  adapter.getInstance().removeContentTypeParser('text/plain');
  limitConnections(adapter.getInstance().server, config.limits);
  const app = await NestFactory.create<NestFastifyApplication>(
    ArborServer.forRoot(config, storeFactory, log),
    adapter,
    { bufferLogs: true, abortOnError: false, bodyParser: false },
  );
  app.useLogger(app.get(Logger));
  app.enableShutdownHooks();
  // Our own JSON parser: UTF-8 checked, nesting bounded before parsing, `__proto__` kept as data;
  // the bytes it reads are counted (arbor_http_request_body_bytes_total).
  const metrics = app.get(MetricsService);
  installJsonBodyParser(adapter.getInstance(), config.limits.jsonMaxDepth, (n) =>
    metrics.bodyBytes.inc(n),
  );
  // First of the hooks: the request id and the metrics cover every answer, 401s included.
  observeRequests(adapter.getInstance(), metrics);
  app.get(Idempotency).install(adapter.getInstance());
  const directory = app.get(TenantDirectoryService);
  authenticateBeforeBody(adapter.getInstance(), (request) => {
    const authorizations = authorizationHeaderCount(request.raw.rawHeaders);
    if (authorizations > 1) {
      return new Problem(
        'malformed_header',
        `Send one Authorization header; this request has ${authorizations}.`,
      );
    }
    const path = request.url.split('?')[0];
    if (!path.startsWith('/v1/')) return null;
    const token = bearerToken(request.headers.authorization);
    if (/^\/v1\/(tenants|admin)(\/|$)/.test(path)) {
      if (config.adminKey === null) {
        return new Problem('forbidden', 'Admin calls are disabled: set ARBOR_ADMIN_KEY.');
      }
      return token !== null && safeEqual(token, config.adminKey)
        ? null
        : new Problem('unauthorized', 'The admin key is not valid.');
    }
    const auth = directory.authenticate(request.headers.authorization);
    if (auth.ok) return null;
    // A key unknown here may have been issued through another replica a moment ago.
    if (auth.reason !== 'missing') {
      return directory
        .authenticateFresh(request.headers.authorization)
        .then((fresh) =>
          fresh.ok ? null : new Problem('unauthorized', 'The API key is not valid.'),
        );
    }
    return new Problem(
      'unauthorized',
      auth.reason === 'missing'
        ? 'Send Authorization: Bearer <api key>.'
        : 'The API key is not valid.',
    );
  });
  rateLimitRequests(adapter.getInstance(), directory, app.get(RateLimiterService));
  // Swagger UI at /docs over the generated document (no decorators: the contract is the source).
  // Built on the first request for it (generating takes about a second), not at every start.
  protectDocs(adapter.getInstance());
  SwaggerModule.setup('docs', app, openApiDocument, { jsonDocumentUrl: 'docs/openapi.json' });
  await serveConsole(app);
  try {
    await app.init();
  } catch (e) {
    // Close what did start (the store, its subscriptions), so a failed start leaves no handles.
    await app.close().catch(() => undefined);
    throw e;
  }
  return app;
};
