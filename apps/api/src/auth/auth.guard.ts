import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { isValidId } from '@arbor/event-store';
import { Problem } from '../problem/problem';
import { ErasureService, TenantDirectoryService } from '@arbor/application';
import { type ArborRequest, correlationIdOf } from './caller';

/** `GET …/events` and `…/replay`: the log's own view of an erased conversation stays readable. */
const AUDIT_READS = /^\/v1\/conversations\/[^/?]+\/(events|replay)(\?|$)/;

/** Tenant routes: a valid, unrevoked key of exactly one tenant, or 401 (whatever the reason). */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly directory: TenantDirectoryService,
    private readonly erasure: ErasureService,
  ) {}

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
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
    // Every route of a conversation its own tenant erased answers 410 (another tenant's key
    // finds no tombstone under its own tenant, so it gets the usual 404) — except the audit log
    // and replay, which read the log itself and show the structure with `[erased]` content.
    const id = (request.params as { id?: unknown } | undefined)?.id;
    if (
      typeof id === 'string' &&
      isValidId(id) &&
      request.url.startsWith('/v1/conversations/') &&
      !AUDIT_READS.test(request.url)
    ) {
      // One key-store lookup, only on a conversation's routes (a remote key store: one round trip).
      return this.erasure.assertNotErased(auth.tenantId, id).then(() => true);
    }
    return true;
  }
}
