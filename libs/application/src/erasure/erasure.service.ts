import { Inject, Injectable } from '@nestjs/common';
import {
  conversationStream,
  type EventStore,
  parseStreamName,
  type RecordedEvent,
  StreamNotFoundError,
  tenantStreamPrefix,
} from '@arbor/event-store';
import { type KeyStore } from '@arbor/event-store/crypto';
import { CONVERSATION_ERASED } from '@arbor/projections';
import { type Caller } from '../caller';
import { ContextService } from '../context/context.service';
import { type ResultOf } from '@arbor/domain';
import {
  ConversationRepository,
  erasedError,
  type Executed,
} from '../conversations/conversation.repository';
import { ReadModelsService } from '../conversations/read-models.service';
import { AppError, conversationNotFound } from '../errors';
import { EVENT_STORE, KEY_STORE } from '../store/store.provider';
import { TenantDirectoryService, tenantStream } from '../tenants/tenant-directory.service';

export { CONVERSATION_ERASED };

export type ForkPolicy = 'keep' | 'erase';

export interface ErasedConversation {
  conversationId: string;
  erasedAt: string;
  reason: string;
  revision: number;
}

export interface ErasureResult extends ErasedConversation {
  erasedForks: ErasedConversation[];
  keptForks: string[];
}

export interface SweepResult {
  tenants: number;
  erased: { tenantId: string; conversationId: string; idleDays: number }[];
}

const DAY_MS = 24 * 60 * 60 * 1000;
const PAGE = 5000;

/** Crypto-shredding: the key first, then the event; a crash between them already reads as erased. */
@Injectable()
export class ErasureService {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(KEY_STORE) private readonly keys: KeyStore,
    private readonly repository: ConversationRepository,
    private readonly readModels: ReadModelsService,
    private readonly context: ContextService,
    private readonly directory: TenantDirectoryService,
  ) {
    // Any replica's erasure empties this process's caches of the conversation's content.
    this.readModels.onErasure((tenantId, conversationId) => {
      this.repository.forget(tenantId, conversationId);
      this.context.forgetCaches();
      this.keys.dropCached(conversationStream(tenantId, conversationId));
    });
  }

  /** 410 `conversation_erased` when the caller's tenant erased `conversationId`. */
  async assertNotErased(tenantId: string, conversationId: string): Promise<void> {
    const erasure = await this.keys.erasure(conversationStream(tenantId, conversationId));
    if (erasure !== null) throw erasedError(erasure);
  }

  private async lastEvent(stream: string): Promise<RecordedEvent | null> {
    try {
      const [last] = await this.store.readStream(stream, {
        direction: 'backwards',
        fromRevision: 'end',
        maxCount: 1,
      });
      return last ?? null;
    } catch (e) {
      if (e instanceof StreamNotFoundError) return null;
      throw e;
    }
  }

  private async forksOf(caller: Caller, conversationId: string): Promise<string[]> {
    const queries = await this.readModels.upToDateWith(
      conversationStream(caller.tenantId, conversationId),
    );
    const row = await queries.getConversation(caller.tenantId, conversationId);
    return row === null ? [] : row.forks.map((f) => f.conversationId);
  }

  async eraseConversation(
    caller: Caller,
    conversationId: string,
    options: {
      reason: string;
      forks?: ForkPolicy;
      onProgress?: (done: number, total: number) => void;
    },
  ): Promise<ErasureResult> {
    const forks = await this.forksOf(caller, conversationId);
    // The whole lineage first (before any row is dropped), so progress has a total.
    const lineage: string[] = [];
    if (options.forks === 'erase') {
      const pending = [...forks];
      const seen = new Set([conversationId]);
      while (pending.length > 0) {
        const fork = pending.shift() as string;
        if (seen.has(fork)) continue;
        seen.add(fork);
        lineage.push(fork);
        pending.push(...(await this.forksOf(caller, fork)));
      }
    }
    const total = 1 + lineage.length;
    const erased = await this.eraseOne(caller, conversationId, options.reason, true);
    options.onProgress?.(1, total);
    const erasedForks: ErasedConversation[] = [];
    for (const [i, fork] of lineage.entries()) {
      const one = await this.eraseOne(caller, fork, options.reason, false);
      if (one !== null) erasedForks.push(one);
      options.onProgress?.(i + 2, total);
    }
    const keptForks = options.forks === 'erase' ? [] : forks;
    this.readModels.compactAfterErasure();
    return { ...(erased as ErasedConversation), erasedForks, keptForks };
  }

  /** `strict`: unknown is 404, erased 410; otherwise (forks, tenants, sweeper) skipped as null. */
  private async eraseOne(
    caller: Caller,
    conversationId: string,
    reason: string,
    strict: boolean,
  ): Promise<ErasedConversation | null> {
    const tenantId = caller.tenantId;
    const stream = conversationStream(tenantId, conversationId);
    const last = await this.lastEvent(stream);
    if (last === null) {
      if (strict) throw conversationNotFound();
      return null;
    }
    if (last.type === CONVERSATION_ERASED) return this.completeErased(caller, last, reason, strict);
    // A tombstone without the event (the process died between them): the event repeats it.
    const tombstone = await this.keys.erasure(stream);
    const erasedAt = tombstone?.erasedAt ?? new Date().toISOString();
    const why = tombstone?.reason ?? reason;
    let erased: Executed<ResultOf<'erase'>>;
    try {
      erased = await this.repository.erase(
        caller,
        conversationId,
        { type: 'erase', reason: why, erasedAt },
        async () => {
          await this.keys.erase(stream, { erasedAt, actor: caller.actor, reason: why });
          await this.forgetEverywhere(tenantId, conversationId);
        },
      );
    } catch (e) {
      // Another writer erased it meanwhile.
      if (!(e instanceof AppError) || e.code !== 'conversation_erased') throw e;
      const now = await this.lastEvent(stream);
      if (now === null) throw e;
      return this.completeErased(caller, now, reason, strict);
    }
    const position = erased.position as bigint;
    this.readModels.noteWrite(caller.keyId, position);
    await this.readModels.reach(position);
    // A read between the key and the event may have cached content or stand-ins: drop them again.
    await this.readModels.dropErasedRows(tenantId, conversationId);
    await this.forgetEverywhere(tenantId, conversationId);
    return { ...erased.result, reason: why };
  }

  private async completeErased(
    caller: Caller,
    last: RecordedEvent,
    reason: string,
    strict: boolean,
  ): Promise<null> {
    const tenantId = caller.tenantId;
    const stream = last.streamName;
    const { conversationId } = last.data as { conversationId: string };
    const tombstone = await this.keys.erasure(stream);
    if (strict && tombstone !== null) throw erasedError(tombstone);
    if (tombstone === null) {
      const data = last.data as { reason?: string };
      await this.keys.erase(stream, {
        erasedAt: last.metadata.timestamp,
        actor: last.metadata.actor,
        reason: data.reason ?? reason,
      });
    }
    await this.forgetEverywhere(tenantId, conversationId);
    await this.readModels.dropErasedRows(tenantId, conversationId);
    return null;
  }

  private async forgetEverywhere(tenantId: string, conversationId: string): Promise<void> {
    try {
      await this.readModels.announceErasure(tenantId, conversationId);
    } catch {
      // Redis unreachable: local caches are emptied; other replicas check the tombstone first.
    }
  }

  private async conversationsOf(tenantId: string): Promise<string[]> {
    const prefix = tenantStreamPrefix('conv', tenantId);
    const ids = new Set<string>();
    let from: bigint | 'start' = 'start';
    for (;;) {
      const page = await this.store.readAll({
        fromPosition: from,
        maxCount: PAGE,
        filter: { streamPrefixes: [prefix], eventTypes: ['ConversationStarted'] },
      });
      for (const e of page) {
        const parts = parseStreamName(e.streamName);
        if (parts !== null) ids.add(parts.entityId);
      }
      if (page.length < PAGE) break;
      from = page[page.length - 1].position + 1n;
    }
    return [...ids];
  }

  /** Erases every conversation of a tenant, then its keys; safe to rerun (erased ones are skipped). */
  async eraseTenant(
    tenantId: string,
    options: { reason: string; actor: string; onProgress?: (done: number, total: number) => void },
  ): Promise<{ tenantId: string; erased: number; conversations: number; reason: string }> {
    // In the scaled shape the tenant may have been made through another replica a moment ago.
    await this.directory.fresh();
    if (!this.directory.exists(tenantId)) throw new AppError('tenant_not_found');
    const caller: Caller = { tenantId, keyId: `erase:${tenantId}`, actor: options.actor };
    const ids = await this.conversationsOf(tenantId);
    let erased = 0;
    for (const [i, id] of ids.entries()) {
      if ((await this.eraseOne(caller, id, options.reason, false)) !== null) erased += 1;
      options.onProgress?.(i + 1, ids.length);
    }
    this.readModels.compactAfterErasure();
    await this.directory.recordTenantErased(tenantId, options.reason, ids.length, {
      actor: options.actor,
    });
    // Last, the tenant's own key (its name, its keys' labels): the events above carry none.
    const profile = tenantStream(tenantId);
    await this.keys.erase(profile, {
      erasedAt: new Date().toISOString(),
      actor: options.actor,
      reason: options.reason,
    });
    this.keys.dropCached(profile);
    return { tenantId, erased, conversations: ids.length, reason: options.reason };
  }

  /** Retention: erases the conversations idle longer than their tenant's `retentionDays`. */
  async sweep(
    options: {
      now?: Date;
      actor?: string;
      onProgress?: (done: number, total: number) => void;
      onScan?: (done: number, total: number) => void;
    } = {},
  ): Promise<SweepResult> {
    const now = (options.now ?? new Date()).getTime();
    await this.directory.fresh();
    const policies = this.directory.retentionPolicies();
    const due: { tenantId: string; conversationId: string; idleDays: number; days: number }[] = [];
    const candidates: { tenantId: string; retentionDays: number; id: string }[] = [];
    for (const { tenantId, retentionDays } of policies) {
      for (const id of await this.conversationsOf(tenantId))
        candidates.push({ tenantId, retentionDays, id });
    }
    for (const [i, { tenantId, retentionDays, id }] of candidates.entries()) {
      const last = await this.lastEvent(conversationStream(tenantId, id));
      options.onScan?.(i + 1, candidates.length);
      if (last === null || last.type === CONVERSATION_ERASED) continue;
      const idle = now - Date.parse(last.metadata.timestamp);
      if (idle > retentionDays * DAY_MS) {
        due.push({
          tenantId,
          conversationId: id,
          idleDays: Math.floor(idle / DAY_MS),
          days: retentionDays,
        });
      }
    }
    const erased: SweepResult['erased'] = [];
    for (const [i, d] of due.entries()) {
      const caller: Caller = {
        tenantId: d.tenantId,
        keyId: `retention:${d.tenantId}`,
        actor: options.actor ?? 'retention',
      };
      const reason = `retention: idle more than ${d.days} days`;
      if ((await this.eraseOne(caller, d.conversationId, reason, false)) !== null) {
        erased.push({
          tenantId: d.tenantId,
          conversationId: d.conversationId,
          idleDays: d.idleDays,
        });
      }
      options.onProgress?.(i + 1, due.length);
    }
    if (erased.length > 0) this.readModels.compactAfterErasure();
    return { tenants: policies.length, erased };
  }
}
