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

/** Tenants and keys: written as events, read back through a subscription (own writes wait for it). */
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

  /** Calls `listener` per key revoked (`null`: tenant erased) as this replica folds it from the log. */
  onRevoked(listener: (tenantId: string, keyId: string | null) => void): () => void {
    this.revoked.add(listener);
    return () => this.revoked.delete(listener);
  }

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

  /** Scaled shape: an unknown key is retried once the directory reaches the log's head (≤ 2 s). */
  async authenticateFresh(header: string | undefined): Promise<Authentication> {
    const first = authenticate(this.dir, header);
    if (first.ok || first.reason === 'missing') return first;
    return (await this.fresh()) ? authenticate(this.dir, header) : first;
  }

  /** Scaled shape: waits (≤ 2 s) for the directory to reach the log's head; true when it waited. */
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

  /** Folded fresh, so every write decides on what the log holds, not on the subscription's view. */
  private async loadTenant(tenantId: string): Promise<TenantState> {
    try {
      const events = await this.store.readStream(tenantStream(tenantId));
      return events.filter(isTenantEvent).reduce(evolveTenant, initialTenantState());
    } catch (e) {
      if (e instanceof StreamNotFoundError) return initialTenantState();
      throw e;
    }
  }

  /** The write path of every tenant command; own writes then wait for the subscription. */
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

  retention(tenantId: string): { retentionDays: number | null; erased: boolean } {
    const tenant = this.dir.tenants.get(tenantId);
    if (!tenant) throw new AppError('tenant_not_found');
    return { retentionDays: tenant.retentionDays ?? null, erased: tenant.erased === true };
  }

  async setRetention(
    tenantId: string,
    retentionDays: number | null,
    ctx: ActorContext,
  ): Promise<{ retentionDays: number | null }> {
    await this.write({ type: 'setRetention', tenantId, retentionDays }, ctx);
    return { retentionDays: this.retention(tenantId).retentionDays };
  }

  async recordTenantErased(
    tenantId: string,
    reason: string,
    conversations: number,
    ctx: ActorContext,
  ): Promise<void> {
    await this.write({ type: 'eraseTenant', tenantId, reason, conversations }, ctx);
  }

  retentionPolicies(): { tenantId: string; retentionDays: number }[] {
    return [...this.dir.tenants.values()]
      .filter((t) => t.erased !== true && typeof t.retentionDays === 'number')
      .map((t) => ({ tenantId: t.tenantId, retentionDays: t.retentionDays as number }));
  }

  contextSettings(tenantId: string): {
    models: Readonly<Record<string, ContextCapabilityOverride>>;
    version: number;
  } {
    const tenant = this.dir.tenants.get(tenantId);
    if (!tenant) throw new AppError('tenant_not_found');
    return { models: tenant.contextModels, version: tenant.contextSettingsVersion };
  }

  /** Contexts already handed out keep the capabilities they recorded. */
  async setContextSettings(
    tenantId: string,
    models: Record<string, ContextCapabilityOverride>,
    ctx: ActorContext,
  ): Promise<{ models: Readonly<Record<string, ContextCapabilityOverride>>; version: number }> {
    await this.write({ type: 'setContextSettings', tenantId, models }, ctx);
    return this.contextSettings(tenantId);
  }

  rateLimit(tenantId: string): TenantRateLimit | null {
    const tenant = this.dir.tenants.get(tenantId);
    if (!tenant) throw new AppError('tenant_not_found');
    return tenant.rateLimit;
  }

  rateLimitOrNull(tenantId: string): TenantRateLimit | null {
    return this.dir.tenants.get(tenantId)?.rateLimit ?? null;
  }

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

  tenantExists(tenantId: string): boolean {
    const t = this.dir.tenants.get(tenantId);
    return t !== undefined && t.erased !== true;
  }

  tenants(): { id: string; name: string | null; keys: number; activeKeys: number }[] {
    return [...this.dir.tenants.values()].map((t) => ({
      id: t.tenantId,
      name: t.name,
      keys: t.keyIds.length,
      activeKeys: t.keyIds.filter((k) => this.dir.keys.get(k)?.revoked === false).length,
    }));
  }
}
