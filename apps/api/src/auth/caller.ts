import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';

/** Who is calling: set by the auth guard, read by handlers. */
export interface Caller {
  tenantId: string;
  keyId: string;
  /** What goes into event metadata as the actor. */
  actor: string;
  correlationId?: string;
}

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
