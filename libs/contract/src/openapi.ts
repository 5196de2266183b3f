/** The OpenAPI 3.1 document, generated from the route table by zod-openapi. */
import {
  createDocument,
  type ZodOpenApiOperationObject,
  type ZodOpenApiPathsObject,
} from 'zod-openapi';
import { z } from 'zod';
import { PROBLEM_CODES, type ProblemCode, problemSchema, ProblemSchema } from './problems';
import { errorCodes, IdempotencyKeyHeader, ROUTES, type RouteSpec } from './routes';

export type OpenApiDocument = ReturnType<typeof createDocument>;

const SECURITY = { tenant: [{ tenantKey: [] }], admin: [{ adminKey: [] }], none: [] };

/** The error answers of a route: per status, problem+json with the codes it can answer there. */
const problemResponses = (route: RouteSpec) => {
  const byStatus = new Map<number, ProblemCode[]>();
  for (const code of errorCodes(route)) {
    const { status } = PROBLEM_CODES[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries(
    [...byStatus.entries()]
      .sort(([a], [b]) => a - b)
      .map(([status, codes]) => [
        String(status),
        {
          description: codes.map((c) => `\`${c}\`: ${PROBLEM_CODES[c].title}`).join('; '),
          content: { 'application/problem+json': { schema: problemSchema(codes) } },
        },
      ]),
  );
};

const operation = (route: RouteSpec): ZodOpenApiOperationObject => {
  const answers = Object.fromEntries(
    Object.entries(route.responses).map(([status, a]) => [
      status,
      {
        description: a.description,
        ...(a.headers ? { headers: a.headers } : {}),
        ...(a.schema
          ? { content: { 'application/json': { schema: a.schema } } }
          : a.text
            ? {
                content: Object.fromEntries(
                  a.text.map((t) => [t, { schema: { type: 'string' as const } }]),
                ),
              }
            : {}),
      },
    ]),
  );
  return {
    operationId: route.operationId,
    tags: [route.tag],
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    security: SECURITY[route.auth],
    ...(route.params || route.query || route.idempotent || route.headers
      ? {
          requestParams: {
            ...(route.params ? { path: route.params } : {}),
            ...(route.query ? { query: route.query } : {}),
            ...(route.idempotent || route.headers
              ? {
                  header: (route.idempotent ? IdempotencyKeyHeader : z.object({})).extend(
                    route.headers?.shape ?? {},
                  ),
                }
              : {}),
          },
        }
      : {}),
    ...(route.body
      ? {
          requestBody: {
            required: route.body.required,
            content: { 'application/json': { schema: route.body.schema } },
          },
        }
      : {}),
    responses: { ...answers, ...problemResponses(route) },
  };
};

export const buildOpenApiDocument = (): OpenApiDocument => {
  const paths: ZodOpenApiPathsObject = {};
  for (const route of ROUTES) {
    paths[route.path] = { ...(paths[route.path] ?? {}), [route.method]: operation(route) };
  }
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Arbor',
      version: '1',
      description:
        'Event-sourced conversation history for LLM agents. Errors are ' +
        'application/problem+json (RFC 9457) with a stable `code`; each operation lists the ' +
        'codes it can answer, by status. Lists are `{items, next?}` and take `?cursor=<next>&limit=N`.',
    },
    components: {
      securitySchemes: {
        tenantKey: {
          type: 'http',
          scheme: 'bearer',
          description: "A tenant's API key, `arb_<keyId>_<secret>` (opaque, not a JWT)",
        },
        adminKey: {
          type: 'http',
          scheme: 'bearer',
          description: 'The admin key from the environment (ARBOR_ADMIN_KEY)',
        },
      },
      schemas: { Problem: ProblemSchema },
    },
    paths,
  });
};
