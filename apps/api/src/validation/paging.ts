import { applyDecorators } from '@nestjs/common';
import { ApiQuery } from '@nestjs/swagger';

/**
 * The OpenAPI side of a cursor-paginated list (the HTTP contract: `?cursor=<next>&limit=N` →
 * `{items, next?}`): the two query parameters, with the route's default page size.
 */
export const ApiPaging = (defaultLimit = 100): MethodDecorator =>
  applyDecorators(
    ApiQuery({ name: 'cursor', required: false }),
    ApiQuery({
      name: 'limit',
      required: false,
      schema: { type: 'integer', minimum: 1, maximum: 1000, default: defaultLimit },
    }),
  );
