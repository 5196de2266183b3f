import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { AUDIT_SECRET_ENV, loadAuditSecret, withHashChain } from '@arbor/audit';
import { type EventStore } from '@arbor/event-store';
import { openEventStoreDbStore } from '@arbor/event-store/esdb';
import { eventStoreDataPath, openSqliteEventStore } from '@arbor/event-store/sqlite';
import { type ArborConfig } from '../config/config';
import { type HeadSignal } from './head-signal';

export const EVENT_STORE = Symbol('EVENT_STORE');

/**
 * The embedded SQLite log by default; EventStoreDB when a connection string is configured. Every
 * append goes through the hash chain (keyed with ARBOR_AUDIT_SECRET or `<dataDir>/audit.key`),
 * so every writer's events are tamper-evident (`arbor verify`).
 */
export const createEventStore = (config: ArborConfig, signal?: HeadSignal): EventStore => {
  const store = config.eventStoreConnectionString
    ? openEventStoreDbStore(config.eventStoreConnectionString)
    : openSqliteEventStore({
        path: eventStoreDataPath(config.dataDir),
        synchronous: config.synchronous,
        groupCommit: config.groupCommit,
        checkpointIntervalMs: config.checkpointIntervalMs,
        ...(signal ? { wakeSignal: signal } : {}),
      });
  return withHashChain(store, auditSecretOf(config));
};

export const auditSecretOf = (config: ArborConfig): Buffer =>
  loadAuditSecret(config.dataDir, { [AUDIT_SECRET_ENV]: config.auditSecret ?? undefined }).key;

/** Closes the log last: subscribers stop in onModuleDestroy, which Nest runs before this phase. */
@Injectable()
export class StoreLifecycle implements OnApplicationShutdown {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async onApplicationShutdown(): Promise<void> {
    await this.store.close();
  }
}
