/** @arbor/client — a typed client for the Arbor HTTP API, typed by its OpenAPI document. */
export { ArborClient, type ArborClientOptions, type StreamEvent } from './client';
export {
  ArborNetworkError,
  ArborProblemError,
  isProblem,
  type ProblemExtras,
  type ProblemWith,
} from './problems';
export * from './types';
export { operationRoutes, type components, type operations, type paths } from './openapi';
