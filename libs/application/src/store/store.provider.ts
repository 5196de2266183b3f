import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { AUDIT_SECRET_ENV, loadAuditSecret, withHashChain } from '@arbor/audit';
import { type EventStore } from '@arbor/event-store';
import { openEventStoreDbKeyStore, openEventStoreDbStore } from '@arbor/event-store/esdb';
import {
  type KeyStore,
  keyStoreDataPath,
  loadMasterKey,
  MASTER_KEY_ENV,
  openSqliteKeyStore,
  withContentKeys,
} from '@arbor/event-store/crypto';
import { eventStoreDataPath, openSqliteEventStore } from '@arbor/event-store/sqlite';
import { type ArborConfig } from '../config/config';
import { type HeadSignal } from './head-signal';

/** The log every reader and writer uses: content sealed on append, opened on read. */
export const EVENT_STORE = Symbol('EVENT_STORE');
/** The log as stored (sealed content, hash chain): what the verifier recomputes. */
export const SEALED_EVENT_STORE = Symbol('SEALED_EVENT_STORE');
export const KEY_STORE = Symbol('KEY_STORE');

/** SQLite by default, EventStoreDB when configured; every append goes through the hash chain. */
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

export const createKeyStore = (config: ArborConfig): KeyStore => {
  const masterKey = loadMasterKey(config.dataDir, {
    [MASTER_KEY_ENV]: config.masterKey ?? undefined,
  }).key;
  const kind = config.keyStore ?? (config.eventStoreConnectionString ? 'esdb' : 'sqlite');
  if (kind === 'esdb') {
    if (!config.eventStoreConnectionString) {
      throw new Error('ARBOR_KEY_STORE=esdb needs EVENTSTORE_CONNECTION_STRING');
    }
    return openEventStoreDbKeyStore(config.eventStoreConnectionString, masterKey);
  }
  return openSqliteKeyStore(keyStoreDataPath(config.dataDir), masterKey);
};

export const withContentEncryption = (
  sealed: EventStore,
  keys: KeyStore,
  config: ArborConfig,
): EventStore => withContentKeys(sealed, keys, { encrypt: config.encryption ?? true });

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
