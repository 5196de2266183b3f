import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { safeEqual } from '@arbor/tenancy';
import { ARBOR_CONFIG, type ArborConfig } from '@arbor/application';
import { Problem } from '../problem/problem';
import { bearerToken } from './bearer';
import { type ArborRequest, correlationIdOf } from './caller';

/** Admin routes: `Authorization: Bearer $ARBOR_ADMIN_KEY`; refused outright when it is unset. */
@Injectable()
export class AdminGuard implements CanActivate {
  constructor(@Inject(ARBOR_CONFIG) private readonly config: ArborConfig) {}

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<ArborRequest>();
    if (this.config.adminKey === null) {
      throw new Problem('forbidden', 'Admin calls are disabled: set ARBOR_ADMIN_KEY.');
    }
    const token = bearerToken(request.headers.authorization);
    if (token === null || !safeEqual(token, this.config.adminKey)) {
      throw new Problem('unauthorized', 'The admin key is not valid.');
    }
    request.caller = {
      tenantId: '',
      keyId: 'admin',
      actor: 'admin',
      correlationId: correlationIdOf(request),
    };
    return true;
  }
}
