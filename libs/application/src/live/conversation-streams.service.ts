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

/** Events read from the log per wake-up at most (a long replay is read in such pages). */
const READ_PAGE = 100;
/** After a resync that failed (read models unavailable), the next try. */
const RESYNC_RETRY_MS = 1000;

/** An open live stream: its events in revision order, until `close()` or the server stops. */
export interface LiveStream {
  /** The conversation's last revision when the stream opened (what "no Last-Event-ID" starts after). */
  readonly head: number;
  events(): AsyncGenerator<AuditEvent>;
  /** Aborted when the stream is closed: by its reader, or for all streams on shutdown. */
  readonly signal: AbortSignal;
  close(): void;
}

/**
 * Live streams of a conversation's events as they are projected (`GET …/stream`). A stream
 * replays from the log what follows the client's last revision, then waits for the projection's
 * signal (`ProjectedSignals`) for each new revision and reads the new events from the log — the
 * log stays the one source of every event sent, and an event is sent only once the read models
 * hold it (a read after receiving it sees it). With Redis the signals come from whichever worker
 * projected the conversation, so a stream on a `--projector off` replica is woken too. Each
 * stream keeps a cursor (the last revision sent) and only ever reads after it: an event is sent
 * once, in revision order, however many signals (duplicated, late, replayed by a rebuild) arrive.
 * Open streams are bounded per tenant. A stream hears only while its key may: revoking the key or
 * erasing the tenant closes it at once (on every replica: each folds the revocation from the
 * log), and each event is sent only after the key is checked again.
 */
@Injectable()
export class ConversationStreamsService implements OnModuleDestroy {
  private readonly perTenant = new Map<string, number>();
  /** Each open stream, with whose key opened it. */
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

  /** Open streams of a tenant (for metrics and tests). */
  openFor(tenantId: string): number {
    return this.perTenant.get(tenantId) ?? 0;
  }

  /**
   * Opens a stream after revision `after` (null: after the conversation's current last revision).
   * Throws `conversation_not_found` (also for another tenant's id), `too_many_streams`, or
   * `projection_lagging` when the read models cannot catch up with the stream in time.
   */
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
    /** The highest revision the projection has applied for this stream, as far as we know. */
    let projected = -1;
    let wakeUp: (() => void) | null = null;
    const wake = (): void => {
      const w = wakeUp;
      wakeUp = null;
      w?.();
    };
    /** Signals may have been lost (pub/sub reconnected): find the projected revision again. */
    let resync = false;
    // Subscribed before the head is read, so a revision projected in between is not missed.
    const unsubscribe = this.signals.subscribe(streamName, (revision) => {
      if (revision === null) resync = true;
      else if (Number(revision) > projected) projected = Number(revision);
      wake();
    });

    const store = this.store;
    const readModels = this.readModels;
    /**
     * The stream's last revision now, once the read models hold it: read first, then waited
     * for (the wait covers at least that event), so it is never ahead of the projection.
     */
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
      // Revoked between the guard and here: nothing is read.
      if (!allowed()) throw new AppError('unauthorized', 'The API key is not valid.');
      // Everything the stream holds now is in the read models before anything is sent.
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
              // The read models cannot answer now (Redis unreachable): look again shortly.
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
            // The signal ran ahead of what this store returns (it cannot on one log): wait again.
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

  /** Shutdown: every open stream ends (its reader sees the generator finish), then the app closes. */
  onModuleDestroy(): void {
    this.stopListening();
    for (const c of [...this.open.keys()]) c.abort();
  }
}
