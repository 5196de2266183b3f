import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import {
  type EventStore,
  type RecordedEvent,
  StreamNotFoundError,
  type Subscription,
  streamName,
} from '@arbor/event-store';
import {
  type Authentication,
  type ContextCapabilityOverride,
  type TenantRateLimit,
  authenticate,
  decideTenant,
  emptyDirectory,
  evolveDirectory,
  evolveTenant,
  initialTenantState,
  type IssuedKey,
  issueKey,
  type NewKey,
  randomAlphanumeric,
  TENANT_CATEGORY,
  TENANT_ENTITY,
  TENANT_EVENT_TYPES,
  type TenantCommand,
  type TenantDirectory,
  type TenantErrorCode,
  type TenantEvent,
  type TenantState,
} from '@arbor/tenancy';
import { type AppErrorCode, AppError } from '../errors';
import { expectedRevisionOf, handleCommand } from '../write/handle-command';
import { EVENT_STORE } from '../store/store.provider';
import { ARBOR_CONFIG, type ArborConfig } from '../config/config';

const isTenantEvent = (e: RecordedEvent): e is RecordedEvent & TenantEvent =>
  (TENANT_EVENT_TYPES as readonly string[]).includes(e.type);

export const tenantStream = (tenantId: string): string =>
  streamName({ category: TENANT_CATEGORY, tenantId, entityId: TENANT_ENTITY });

const storedKey = (key: IssuedKey): NewKey => ({ keyId: key.keyId, secretHash: key.secretHash });

/** A taken tenant id is a lost race like any other (ids are random): decided again, it differs. */
const TENANT_ERRORS: Record<TenantErrorCode, AppErrorCode> = {
  tenant_exists: 'concurrency_conflict',
  tenant_not_found: 'tenant_not_found',
  key_not_found: 'not_found',
};

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
  private readonly revoked = new Set<(tenantId: string, keyId: string | null) => void>();

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(ARBOR_CONFIG) private readonly config: ArborConfig,
  ) {}

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
            if (msg.event.type === 'ApiKeyRevoked') {
              this.tellRevoked(msg.event.data.tenantId, msg.event.data.keyId);
            } else if (msg.event.type === 'TenantErased') {
              this.tellRevoked(msg.event.data.tenantId, null);
            }
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

  private tellRevoked(tenantId: string, keyId: string | null): void {
    for (const listener of [...this.revoked]) {
      try {
        listener(tenantId, keyId);
      } catch (error) {
        this.logger.error(`revocation listener failed: ${String(error)}`);
      }
    }
  }

  /**
   * Calls `listener` with each key revoked (`keyId`) or tenant erased (`null`: all its keys), as
   * this process's directory folds it from the log — so on every replica, whichever one wrote it.
   * Returns the function that stops it.
   */
  onRevoked(listener: (tenantId: string, keyId: string | null) => void): () => void {
    this.revoked.add(listener);
    return () => this.revoked.delete(listener);
  }

  /** The key is one of the tenant's, not revoked, and the tenant is not erased. */
  keyActive(tenantId: string, keyId: string): boolean {
    const key = this.dir.keys.get(keyId);
    return (
      key !== undefined &&
      key.tenantId === tenantId &&
      !key.revoked &&
      this.dir.tenants.get(tenantId)?.erased !== true
    );
  }

  authenticate(header: string | undefined): Authentication {
    return authenticate(this.dir, header);
  }

  /**
   * As `authenticate`, but a key this process does not know yet is looked up again once the
   * directory has caught up with the log's head (bounded by 2 s): a key issued through another
   * replica a moment ago is known here too, not 401 until the next poll of the shared log. Only
   * in the scaled shape: the embedded process answers an unknown key at once.
   */
  async authenticateFresh(header: string | undefined): Promise<Authentication> {
    const first = authenticate(this.dir, header);
    if (first.ok || first.reason === 'missing') return first;
    return (await this.fresh()) ? authenticate(this.dir, header) : first;
  }

  /**
   * Waits (bounded by 2 s) until this process's directory has caught up with the log's head, so
   * a directory read on one replica sees a write just made through another (a key issued, a limit
   * or a setting changed). Only in the scaled shape (REDIS_URL / REDIS_CLUSTER_URLS): one process
   * alone writes everything it knows, and its own writes already wait for its directory. True
   * when it waited (the directory may have changed).
   */
  async fresh(): Promise<boolean> {
    if (this.config.redis === null) return false;
    const head = await this.store.headPosition();
    if (head === null || (this.position !== null && this.position >= head)) return false;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.waitFor(head),
      new Promise((r) => {
        timer = setTimeout(r, 2000);
      }),
    ]);
    clearTimeout(timer);
    return true;
  }

  exists(tenantId: string): boolean {
    return this.dir.tenants.has(tenantId);
  }

  /**
   * The tenant's own stream folded fresh (a handful of events: one per key and per settings
   * change), so every write decides on what the log holds, not on the subscription's view.
   */
  private async loadTenant(tenantId: string): Promise<TenantState> {
    try {
      const events = await this.store.readStream(tenantStream(tenantId));
      return events.filter(isTenantEvent).reduce(evolveTenant, initialTenantState());
    } catch (e) {
      if (e instanceof StreamNotFoundError) return initialTenantState();
      throw e;
    }
  }

  /**
   * The write path of every tenant command (the same as a conversation's): load the tenant's
   * stream, decide, append at the revision decided on, and on a concurrent append decide again on
   * fresh state. Own writes then wait for the subscription, so the directory has them.
   */
  private async write(command: TenantCommand, ctx: ActorContext): Promise<void> {
    const { tenantId } = command;
    await handleCommand(this.store, {
      stream: tenantStream(tenantId),
      load: () => this.loadTenant(tenantId),
      expectedRevision: (state) => expectedRevisionOf(state.revision),
      decide: (state) => {
        const decision = decideTenant(command, state);
        if (!decision.ok) throw new AppError(TENANT_ERRORS[decision.code], decision.message);
        const timestamp = new Date().toISOString();
        const events = decision.events.map((e) => ({
          type: e.type,
          data: e.data,
          metadata: { tenantId, actor: ctx.actor, timestamp, correlationId: ctx.correlationId },
        }));
        return { events, result: null };
      },
      afterAppend: (_state, _decided, appended) => this.waitFor(appended.position),
    });
  }

  async createTenant(
    name: string | null,
    ctx: ActorContext,
  ): Promise<{ id: string; apiKey: string; keyId: string }> {
    const tenantId = randomAlphanumeric(16);
    const key = issueKey();
    await this.write({ type: 'createTenant', tenantId, name, key: storedKey(key) }, ctx);
    return { id: tenantId, apiKey: key.apiKey, keyId: key.keyId };
  }

  async issueKey(
    tenantId: string,
    label: string | null,
    ctx: ActorContext,
  ): Promise<{ keyId: string; apiKey: string }> {
    const key = issueKey();
    await this.write({ type: 'issueKey', tenantId, key: { ...storedKey(key), label } }, ctx);
    return { keyId: key.keyId, apiKey: key.apiKey };
  }

  async revokeKey(tenantId: string, keyId: string, ctx: ActorContext): Promise<void> {
    await this.write({ type: 'revokeKey', tenantId, keyId }, ctx);
  }

  /** The tenant's retention in days (null: conversations are kept). */
  retention(tenantId: string): { retentionDays: number | null; erased: boolean } {
    const tenant = this.dir.tenants.get(tenantId);
    if (!tenant) throw new AppError('tenant_not_found');
    return { retentionDays: tenant.retentionDays ?? null, erased: tenant.erased === true };
  }

  /** Sets the tenant's retention: one `TenantRetentionSet` (nothing when unchanged). */
  async setRetention(
    tenantId: string,
    retentionDays: number | null,
    ctx: ActorContext,
  ): Promise<{ retentionDays: number | null }> {
    await this.write({ type: 'setRetention', tenantId, retentionDays }, ctx);
    return { retentionDays: this.retention(tenantId).retentionDays };
  }

  /** Revokes every key of the tenant and records `TenantErased` (its conversations go first). */
  async recordTenantErased(
    tenantId: string,
    reason: string,
    conversations: number,
    ctx: ActorContext,
  ): Promise<void> {
    await this.write({ type: 'eraseTenant', tenantId, reason, conversations }, ctx);
  }

  /** Every tenant with a retention policy, and its days. */
  retentionPolicies(): { tenantId: string; retentionDays: number }[] {
    return [...this.dir.tenants.values()]
      .filter((t) => t.erased !== true && typeof t.retentionDays === 'number')
      .map((t) => ({ tenantId: t.tenantId, retentionDays: t.retentionDays as number }));
  }

  /** The tenant's context capability overrides by model-name prefix, and how often they were set. */
  contextSettings(tenantId: string): {
    models: Readonly<Record<string, ContextCapabilityOverride>>;
    version: number;
  } {
    const tenant = this.dir.tenants.get(tenantId);
    if (!tenant) throw new AppError('tenant_not_found');
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
    await this.write({ type: 'setContextSettings', tenantId, models }, ctx);
    return this.contextSettings(tenantId);
  }

  /** The admin's rate limit for the tenant; null: the service default (ARBOR_RATE_LIMIT_*). */
  rateLimit(tenantId: string): TenantRateLimit | null {
    const tenant = this.dir.tenants.get(tenantId);
    if (!tenant) throw new AppError('tenant_not_found');
    return tenant.rateLimit;
  }

  /** The tenant's own rate limit, null when it has none or does not exist (never throws). */
  rateLimitOrNull(tenantId: string): TenantRateLimit | null {
    return this.dir.tenants.get(tenantId)?.rateLimit ?? null;
  }

  /** Sets (or, with null, clears) the tenant's rate limit: one `TenantRateLimitSet` event. */
  async setRateLimit(
    tenantId: string,
    limit: TenantRateLimit | null,
    ctx: ActorContext,
  ): Promise<TenantRateLimit | null> {
    await this.write({ type: 'setRateLimit', tenantId, limit }, ctx);
    return this.rateLimit(tenantId);
  }

  listKeys(tenantId: string): { keyId: string; label: string | null; revoked: boolean }[] {
    const tenant = this.dir.tenants.get(tenantId);
    if (!tenant) throw new AppError('tenant_not_found');
    return tenant.keyIds.map((id) => {
      const k = this.dir.keys.get(id)!;
      return { keyId: k.keyId, label: k.label, revoked: k.revoked };
    });
  }

  /** Whether the tenant exists (and is not erased): the admin's reads of its data need one. */
  tenantExists(tenantId: string): boolean {
    const t = this.dir.tenants.get(tenantId);
    return t !== undefined && t.erased !== true;
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
