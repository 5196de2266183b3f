import { Inject, Injectable } from '@nestjs/common';
import { type EventStore, streamName } from '@arbor/event-store';
import { EVENT_STORE } from '../store/store.provider';
import { AppError } from '../errors';
import { handleCommand } from '../write/handle-command';
import { type Caller } from '../caller';
import { TenantDirectoryService } from './tenant-directory.service';

export const adminReadsStream = (tenantId: string): string =>
  streamName({ category: 'audit', tenantId, entityId: 'admin-reads' });

export interface AdminDataRead {
  type: 'AdminDataRead';
  data: {
    tenantId: string;
    route: string;
    conversationId: string | null;
  };
}

/** Each admin read is recorded before it is answered; unrecorded reads are not answered. */
@Injectable()
export class AdminReadsService {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly directory: TenantDirectoryService,
  ) {}

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
