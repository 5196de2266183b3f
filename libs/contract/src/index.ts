/** The HTTP API's wire contract: schemas, problem codes, route table and the OpenAPI document. */
export * from './common';
export * from './messages';
export * from './problems';
export * from './requests';
export * from './responses';
export * from './routes';
export * from './console-routes';
export * from './openapi';
export * from './types';
