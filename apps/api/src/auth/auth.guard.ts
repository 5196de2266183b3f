import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Problem } from '../problem/problem';
import { TenantDirectoryService } from '@arbor/application';
import { type ArborRequest, correlationIdOf } from './caller';

/** Tenant routes: a valid, unrevoked key of exactly one tenant, or 401 (whatever the reason). */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(private readonly directory: TenantDirectoryService) {}

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<ArborRequest>();
    const auth = this.directory.authenticate(request.headers.authorization);
    if (!auth.ok) {
      throw new Problem(
        'unauthorized',
        auth.reason === 'missing'
          ? 'Send Authorization: Bearer <api key>.'
          : 'The API key is not valid.',
      );
    }
    request.caller = {
      tenantId: auth.tenantId,
      keyId: auth.keyId,
      actor: `key:${auth.keyId}`,
      correlationId: correlationIdOf(request),
    };
    return true;
  }
}
