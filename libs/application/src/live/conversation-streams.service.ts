import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import { conversationStream, type EventStore, StreamNotFoundError } from '@arbor/event-store';
import { type Caller } from '../caller';
import { ARBOR_CONFIG, type ArborConfig } from '../config/config';
import { type AuditEvent } from '../conversations/queries';
import { ReadModelsService } from '../conversations/read-models.service';
import { AppError, conversationNotFound } from '../errors';
import { EVENT_STORE } from '../store/store.provider';
import { TenantDirectoryService } from '../tenants/tenant-directory.service';
import { PROJECTED_SIGNALS, type ProjectedSignals } from './projected-signal';

const READ_PAGE = 100;
const RESYNC_RETRY_MS = 1000;

export interface LiveStream {
  /** The last revision when the stream opened: where "no Last-Event-ID" starts after. */
  readonly head: number;
  events(): AsyncGenerator<AuditEvent>;
  readonly signal: AbortSignal;
  close(): void;
}

/** Live streams: replay from the log after the cursor, then wake on projection signals; each revision once. */
@Injectable()
export class ConversationStreamsService implements OnModuleDestroy {
  private readonly perTenant = new Map<string, number>();
  private readonly open = new Map<AbortController, { tenantId: string; keyId: string }>();
  private readonly stopListening: () => void;

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(ARBOR_CONFIG) private readonly config: ArborConfig,
    @Inject(PROJECTED_SIGNALS) private readonly signals: ProjectedSignals,
    private readonly readModels: ReadModelsService,
    private readonly directory: TenantDirectoryService,
  ) {
    this.stopListening = directory.onRevoked((tenantId, keyId) => {
      for (const [controller, owner] of [...this.open]) {
        if (owner.tenantId === tenantId && (keyId === null || owner.keyId === keyId)) {
          controller.abort();
        }
      }
    });
  }

  openFor(tenantId: string): number {
    return this.perTenant.get(tenantId) ?? 0;
  }

  /** Throws `conversation_not_found`, `too_many_streams` or `projection_lagging`. */
  async follow(caller: Caller, conversationId: string, after: number | null): Promise<LiveStream> {
    const max = this.config.streams.maxPerTenant;
    const tenant = caller.tenantId;
    if (this.openFor(tenant) >= max) {
      throw new AppError(
        'too_many_streams',
        `This tenant holds ${max} open streams (ARBOR_STREAM_MAX_PER_TENANT); close one first.`,
      );
    }
    this.perTenant.set(tenant, this.openFor(tenant) + 1);
    const controller = new AbortController();
    this.open.set(controller, { tenantId: tenant, keyId: caller.keyId });
    const directory = this.directory;
    const allowed = (): boolean => directory.keyActive(tenant, caller.keyId);
    controller.signal.addEventListener('abort', () => release());
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      unsubscribe();
      this.open.delete(controller);
      const left = this.openFor(tenant) - 1;
      if (left <= 0) this.perTenant.delete(tenant);
      else this.perTenant.set(tenant, left);
      controller.abort();
      wake();
    };

    const streamName = conversationStream(tenant, conversationId);
    let projected = -1;
    let wakeUp: (() => void) | null = null;
    const wake = (): void => {
      const w = wakeUp;
      wakeUp = null;
      w?.();
    };
    let resync = false;
    // Subscribed before the head is read, so a revision projected in between is not missed.
    const unsubscribe = this.signals.subscribe(streamName, (revision) => {
      if (revision === null) resync = true;
      else if (Number(revision) > projected) projected = Number(revision);
      wake();
    });

    const store = this.store;
    const readModels = this.readModels;
    // Read the head, then wait for the projection to reach it, so it is never ahead of the read models.
    const projectedHead = async (): Promise<number> => {
      const last = await store.readStream(streamName, {
        direction: 'backwards',
        fromRevision: 'end',
        maxCount: 1,
      });
      await readModels.upToDateWith(streamName);
      return last.length === 0 ? -1 : Number(last[0].revision);
    };

    let head: number;
    try {
      if (!allowed()) throw new AppError('unauthorized', 'The API key is not valid.');
      head = await projectedHead();
    } catch (e) {
      release();
      if (e instanceof StreamNotFoundError) throw conversationNotFound();
      throw e;
    }
    if (head > projected) projected = head;
    const signal = controller.signal;
    let cursor = after === null ? head : after;

    async function* events(): AsyncGenerator<AuditEvent> {
      try {
        while (!signal.aborted) {
          if (resync) {
            resync = false;
            try {
              const now = await projectedHead();
              if (now > projected) projected = now;
            } catch {
              setTimeout(() => {
                if (signal.aborted) return;
                resync = true;
                wake();
              }, RESYNC_RETRY_MS).unref();
            }
            continue;
          }
          if (cursor >= projected) {
            await new Promise<void>((resolve) => {
              wakeUp = resolve;
              if (signal.aborted || cursor < projected || resync) wake();
            });
            continue;
          }
          const upTo = projected;
          const page = await store.readStream(streamName, {
            fromRevision: BigInt(cursor + 1),
            maxCount: Math.min(READ_PAGE, upTo - cursor),
          });
          if (page.length === 0) {
            projected = cursor;
            continue;
          }
          for (const e of page) {
            if (signal.aborted || !allowed()) return;
            cursor = Number(e.revision);
            yield { revision: cursor, type: e.type, data: e.data, metadata: e.metadata };
          }
        }
      } finally {
        release();
      }
    }

    return { head, events, signal, close: release };
  }

  onModuleDestroy(): void {
    this.stopListening();
    for (const c of [...this.open.keys()]) c.abort();
  }
}
