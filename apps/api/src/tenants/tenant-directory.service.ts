import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import {
  type EventStore,
  type RecordedEvent,
  type Subscription,
  streamName,
} from '@arbor/event-store';
import {
  type Authentication,
  type ContextCapabilityOverride,
  authenticate,
  emptyDirectory,
  evolveDirectory,
  issueKey,
  randomAlphanumeric,
  TENANT_CATEGORY,
  TENANT_ENTITY,
  TENANT_EVENT_TYPES,
  type TenantDirectory,
  type TenantEvent,
} from '@arbor/tenancy';
import { canonicalJson } from '@arbor/domain';
import { Problem } from '../problem/problem';
import { EVENT_STORE } from '../store/store.provider';

const isTenantEvent = (e: RecordedEvent): e is RecordedEvent & TenantEvent =>
  (TENANT_EVENT_TYPES as readonly string[]).includes(e.type);

export interface ActorContext {
  actor: string;
  correlationId?: string;
}

/**
 * Tenants and keys: written as events to `tenant-<id>.profile`, read back through a subscription
 * into an in-memory directory (one small record per key). Own writes wait for the subscription,
 * so there is one way in and no double application.
 */
@Injectable()
export class TenantDirectoryService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('TenantDirectory');
  private dir: TenantDirectory = emptyDirectory();
  private position: bigint | null = null;
  private subscription: Subscription | null = null;
  private waiters: { position: bigint; resolve: () => void }[] = [];

  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async onModuleInit(): Promise<void> {
    const sub = this.store.subscribeToAll({
      fromPosition: 'start',
      filter: { streamPrefixes: [`${TENANT_CATEGORY}-`], eventTypes: TENANT_EVENT_TYPES },
    });
    this.subscription = sub;
    let ready!: () => void;
    const caughtUp = new Promise<void>((r) => (ready = r));
    void (async () => {
      try {
        for await (const msg of sub) {
          if (msg.kind === 'event' && isTenantEvent(msg.event)) {
            this.dir = evolveDirectory(this.dir, msg.event);
            this.advance(msg.event.position);
          } else if (msg.kind === 'checkpoint') {
            this.advance(msg.position);
          } else if (msg.kind === 'caughtUp') {
            if (msg.position !== null) this.advance(msg.position);
            ready();
          }
        }
      } catch (error) {
        this.logger.error(`tenant subscription failed: ${String(error)}`);
      }
    })();
    await caughtUp;
  }

  async onModuleDestroy(): Promise<void> {
    await this.subscription?.unsubscribe();
  }

  private advance(position: bigint): void {
    if (this.position !== null && position <= this.position) return;
    this.position = position;
    this.waiters = this.waiters.filter((w) => {
      if (w.position > position) return true;
      w.resolve();
      return false;
    });
  }

  private waitFor(position: bigint): Promise<void> {
    if (this.position !== null && this.position >= position) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ position, resolve }));
  }

  authenticate(header: string | undefined): Authentication {
    return authenticate(this.dir, header);
  }

  exists(tenantId: string): boolean {
    return this.dir.tenants.has(tenantId);
  }

  private async append(
    tenantId: string,
    events: TenantEvent[],
    ctx: ActorContext,
    expected: 'no_stream' | 'stream_exists',
  ) {
    const timestamp = new Date().toISOString();
    const result = await this.store.appendToStream(
      streamName({ category: TENANT_CATEGORY, tenantId, entityId: TENANT_ENTITY }),
      events.map((e) => ({
        type: e.type,
        data: e.data,
        metadata: { tenantId, actor: ctx.actor, timestamp, correlationId: ctx.correlationId },
      })),
      { expectedRevision: expected },
    );
    await this.waitFor(result.position);
    return result;
  }

  async createTenant(
    name: string | null,
    ctx: ActorContext,
  ): Promise<{ id: string; apiKey: string; keyId: string }> {
    const tenantId = randomAlphanumeric(16);
    const key = issueKey();
    await this.append(
      tenantId,
      [
        { type: 'TenantCreated', data: { tenantId, name } },
        {
          type: 'ApiKeyIssued',
          data: { tenantId, keyId: key.keyId, secretHash: key.secretHash, label: 'initial' },
        },
      ],
      ctx,
      'no_stream',
    );
    return { id: tenantId, apiKey: key.apiKey, keyId: key.keyId };
  }

  async issueKey(
    tenantId: string,
    label: string | null,
    ctx: ActorContext,
  ): Promise<{ keyId: string; apiKey: string }> {
    if (!this.exists(tenantId)) throw new Problem('tenant_not_found');
    const key = issueKey();
    await this.append(
      tenantId,
      [
        {
          type: 'ApiKeyIssued',
          data: { tenantId, keyId: key.keyId, secretHash: key.secretHash, label },
        },
      ],
      ctx,
      'stream_exists',
    );
    return { keyId: key.keyId, apiKey: key.apiKey };
  }

  async revokeKey(tenantId: string, keyId: string, ctx: ActorContext): Promise<void> {
    const key = this.dir.keys.get(keyId);
    if (!this.exists(tenantId) || !key || key.tenantId !== tenantId)
      throw new Problem('not_found', 'No such key for this tenant.');
    if (key.revoked) return;
    await this.append(
      tenantId,
      [{ type: 'ApiKeyRevoked', data: { tenantId, keyId } }],
      ctx,
      'stream_exists',
    );
  }

  /** The tenant's context capability overrides by model-name prefix, and how often they were set. */
  contextSettings(tenantId: string): {
    models: Readonly<Record<string, ContextCapabilityOverride>>;
    version: number;
  } {
    const tenant = this.dir.tenants.get(tenantId);
    if (!tenant) throw new Problem('tenant_not_found');
    return { models: tenant.contextModels, version: tenant.contextSettingsVersion };
  }

  /**
   * Replaces the tenant's context settings: one `TenantContextSettingsSet` (nothing appended when
   * they are unchanged). Contexts already handed out keep the capabilities they recorded.
   */
  async setContextSettings(
    tenantId: string,
    models: Record<string, ContextCapabilityOverride>,
    ctx: ActorContext,
  ): Promise<{ models: Readonly<Record<string, ContextCapabilityOverride>>; version: number }> {
    const current = this.contextSettings(tenantId);
    if (canonicalJson(current.models) !== canonicalJson(models)) {
      await this.append(
        tenantId,
        [{ type: 'TenantContextSettingsSet', data: { tenantId, models } }],
        ctx,
        'stream_exists',
      );
    }
    return this.contextSettings(tenantId);
  }

  listKeys(tenantId: string): { keyId: string; label: string | null; revoked: boolean }[] {
    const tenant = this.dir.tenants.get(tenantId);
    if (!tenant) throw new Problem('tenant_not_found');
    return tenant.keyIds.map((id) => {
      const k = this.dir.keys.get(id)!;
      return { keyId: k.keyId, label: k.label, revoked: k.revoked };
    });
  }

  /** Every tenant with its key counts (never a secret or a hash), in creation order. */
  tenants(): { id: string; name: string | null; keys: number; activeKeys: number }[] {
    return [...this.dir.tenants.values()].map((t) => ({
      id: t.tenantId,
      name: t.name,
      keys: t.keyIds.length,
      activeKeys: t.keyIds.filter((k) => this.dir.keys.get(k)?.revoked === false).length,
    }));
  }
}
