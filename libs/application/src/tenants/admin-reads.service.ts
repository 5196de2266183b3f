import { Inject, Injectable } from '@nestjs/common';
import { type EventStore, streamName } from '@arbor/event-store';
import { EVENT_STORE } from '../store/store.provider';
import { AppError } from '../errors';
import { handleCommand } from '../write/handle-command';
import { type Caller } from '../caller';
import { TenantDirectoryService } from './tenant-directory.service';

/** The stream of the admin's reads of one tenant's data: `audit-<tenantId>.admin-reads`. */
export const adminReadsStream = (tenantId: string): string =>
  streamName({ category: 'audit', tenantId, entityId: 'admin-reads' });

/** One read of a tenant's data by the admin (`/v1/admin/tenants/{tenantId}/…`). */
export interface AdminDataRead {
  type: 'AdminDataRead';
  data: {
    tenantId: string;
    /** The route's template, e.g. `GET /v1/admin/tenants/{tenantId}/conversations/{id}/tree`. */
    route: string;
    /** The conversation read, or null for the tenant's list. */
    conversationId: string | null;
  };
}

/**
 * The admin's reads of a tenant's data, each one recorded before it is answered: an
 * `AdminDataRead` event (actor `admin`) appended to the tenant's `audit-<tenantId>.admin-reads`
 * stream. A read whose record cannot be written is not answered. The stream is outside the
 * `conv-` and `tenant-` categories, so neither the read models nor the key directory fold it.
 */
@Injectable()
export class AdminReadsService {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly directory: TenantDirectoryService,
  ) {}

  /** Records the read and returns the caller the application queries run as (that tenant). */
  async record(
    tenantId: string,
    read: { route: string; conversationId: string | null },
    correlationId: string | undefined,
  ): Promise<Caller> {
    if (!this.directory.tenantExists(tenantId)) throw new AppError('tenant_not_found');
    const event: AdminDataRead = {
      type: 'AdminDataRead',
      data: { tenantId, route: read.route, conversationId: read.conversationId },
    };
    // An audit record, never decided against: appended at `any`.
    await handleCommand(this.store, {
      stream: adminReadsStream(tenantId),
      load: async () => null,
      expectedRevision: () => 'any',
      decide: () => ({
        events: [
          {
            type: event.type,
            data: event.data,
            metadata: {
              tenantId,
              actor: 'admin',
              timestamp: new Date().toISOString(),
              ...(correlationId !== undefined ? { correlationId } : {}),
            },
          },
        ],
        result: null,
      }),
    });
    return {
      tenantId,
      keyId: 'admin',
      actor: 'admin',
      ...(correlationId !== undefined ? { correlationId } : {}),
    };
  }
}
