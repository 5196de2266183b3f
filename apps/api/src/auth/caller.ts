import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { type Caller } from '@arbor/application';

export type { Caller };

export type ArborRequest = FastifyRequest & { caller?: Caller };

export const correlationIdOf = (request: FastifyRequest): string | undefined => {
  const raw = request.headers['x-correlation-id'];
  const v = Array.isArray(raw) ? raw[0] : raw;
  return v && /^[A-Za-z0-9_.:-]{1,128}$/.test(v) ? v : undefined;
};

export const CallerParam = createParamDecorator((_: unknown, ctx: ExecutionContext): Caller => {
  const request = ctx.switchToHttp().getRequest<ArborRequest>();
  if (!request.caller) throw new Error('CallerParam used on a route without AuthGuard');
  return request.caller;
});
