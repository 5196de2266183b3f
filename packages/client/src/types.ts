/**
 * Types derived from the generated OpenAPI types (openapi.ts): the request and answer of each
 * operation by its operationId, and the problem bodies by `code`.
 */
import { type components, type operations } from './openapi';

export type Schemas = components['schemas'];
export type OperationId = keyof operations;

export type Message = Schemas['Message'];
export type BranchMessage = Schemas['BranchMessage'];
export type MessageInput = Schemas['MessageInput'];
export type Block = Schemas['Block'];
export type Role = Schemas['Role'];
export type JsonValue = Schemas['JsonValue'];

type Op<K extends OperationId> = operations[K];
type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;

type PathOf<K extends OperationId> = Op<K>['parameters'] extends { path: infer P } ? P : never;
type QueryOf<K extends OperationId> = Op<K>['parameters'] extends { query?: infer Q }
  ? NonNullable<Q>
  : never;
type BodyOf<K extends OperationId> = Json<NonNullable<Op<K>['requestBody']>>;
type BodyRequired<K extends OperationId> = Op<K> extends { requestBody: object } ? true : false;

/** What a call takes: `path` parameters, `query`, `body` (each required when the route needs it). */
export type CallInit<K extends OperationId> = ([PathOf<K>] extends [never]
  ? { path?: undefined }
  : { path: PathOf<K> }) &
  ([QueryOf<K>] extends [never] ? { query?: undefined } : { query?: QueryOf<K> }) &
  ([BodyOf<K>] extends [never]
    ? { body?: undefined }
    : BodyRequired<K> extends true
      ? { body: BodyOf<K> }
      : { body?: BodyOf<K> }) & {
    /** Extra headers for this call. */
    headers?: Record<string, string>;
    signal?: AbortSignal;
    /**
     * The call may be sent again after a network error or a 5xx (GET/PUT/DELETE are by default;
     * a POST only when it is idempotent, e.g. a turn with its turnId).
     */
    retry?: boolean;
  };

type Responses<K extends OperationId> = Op<K>['responses'];
type SuccessStatus = 200 | 201 | 204;

/** The JSON answer of a call (its 2xx body; `undefined` for 204, a string for text answers). */
export type Answer<K extends OperationId> = {
  [S in keyof Responses<K>]: S extends SuccessStatus
    ? Responses<K>[S] extends { content: { 'application/json': infer B } }
      ? B
      : Responses<K>[S] extends { content: Record<string, string> }
        ? string
        : undefined
    : never;
}[keyof Responses<K>];

/** Every problem body a call can answer, a union discriminated by `code`. */
export type ProblemOf<K extends OperationId> = {
  [S in keyof Responses<K>]: S extends SuccessStatus
    ? never
    : Responses<K>[S] extends { content: { 'application/problem+json': infer P } }
      ? P
      : never;
}[keyof Responses<K>];

/** The problem body (RFC 9457) with the field every code has; extensions per code. */
export type Problem = Schemas['Problem'];
export type ProblemCode = Problem['code'];
export type FieldError = NonNullable<Problem['errors']>[number];

/** The item type of a paged answer (`{items, next?}`). */
export type PageItem<K extends OperationId> =
  Answer<K> extends { items: (infer I)[]; next?: string } ? I : never;

/** The operations answering `{items, next?}` pages and taking `?cursor`. */
export type PagedOperationId = {
  [K in OperationId]: Answer<K> extends { items: unknown[]; next?: string }
    ? QueryOf<K> extends { cursor?: string }
      ? K
      : never
    : never;
}[OperationId];
