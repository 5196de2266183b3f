/**
 * @arbor/contract — the wire contract of the HTTP API: zod schemas for every request and answer,
 * the problem codes, the route table, and the OpenAPI document generated from them.
 */
export * from './common';
export * from './messages';
export * from './problems';
export * from './requests';
export * from './responses';
export * from './routes';
export * from './console-routes';
export * from './openapi';
export * from './types';
