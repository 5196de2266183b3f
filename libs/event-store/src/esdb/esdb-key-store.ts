/** The key store on EventStoreDB, shared by every machine (stream layout: README, Key stores). */
import {
  ANY,
  EventStoreDBClient,
  FORWARDS,
  jsonEvent,
  NO_STREAM,
  START,
  StreamDeletedError as EsdbStreamDeletedError,
  StreamNotFoundError as EsdbStreamNotFoundError,
  WrongExpectedVersionError as EsdbWrongExpectedVersionError,
} from '@eventstore/db-client';
import { LRUCache } from 'lru-cache';
import { open, seal } from '../crypto/aead';
import {
  ContentErasedError,
  type ErasureRecord,
  type KeyStore,
  KeyUnwrapError,
  newWrappedKey,
  unwrapKey,
} from '../crypto/key-store';
import { KEY_BYTES } from '../crypto/master-key';
import { toStoreError } from './esdb-errors';

export type KeyEventData = Record<string, string | number>;

/** What the key store needs of EventStoreDB: one-stream reads, appends and hard deletes. */
export interface KeyStreams {
  first(stream: string): Promise<unknown>;
  all(stream: string): Promise<unknown[]>;
  append(
    stream: string,
    type: string,
    data: KeyEventData,
    expected: 'no_stream' | 'any',
  ): Promise<'appended' | 'exists' | 'deleted'>;
  tombstone(stream: string): Promise<'deleted' | 'already'>;
  close(): Promise<void>;
}

export const DELETED = 'deleted';

/** The four operations on `@eventstore/db-client` v6. Other errors: StoreUnavailableError. */
export const esdbKeyStreams = (client: EventStoreDBClient): KeyStreams => {
  const read = async (stream: string, maxCount?: number): Promise<unknown[] | 'deleted'> => {
    const out: unknown[] = [];
    try {
      for await (const resolved of client.readStream(stream, {
        direction: FORWARDS,
        fromRevision: START,
        ...(maxCount !== undefined && { maxCount }),
      })) {
        if (resolved.event !== undefined) out.push(resolved.event.data);
      }
      return out;
    } catch (error) {
      if (error instanceof EsdbStreamNotFoundError) return [];
      if (error instanceof EsdbStreamDeletedError) return DELETED;
      throw toStoreError(error, { streamName: stream });
    }
  };
  return {
    async first(stream) {
      const events = await read(stream, 1);
      return events === DELETED ? DELETED : (events[0] ?? null);
    },
    async all(stream) {
      const events = await read(stream);
      return events === DELETED ? [] : events;
    },
    async append(stream, type, data, expected) {
      try {
        await client.appendToStream(stream, jsonEvent({ type, data }), {
          expectedRevision: expected === 'no_stream' ? NO_STREAM : ANY,
        });
        return 'appended';
      } catch (error) {
        if (error instanceof EsdbWrongExpectedVersionError) return 'exists';
        if (error instanceof EsdbStreamDeletedError) return DELETED;
        throw toStoreError(error, { streamName: stream });
      }
    },
    async tombstone(stream) {
      try {
        await client.tombstoneStream(stream, { expectedRevision: ANY });
        return DELETED;
      } catch (error) {
        if (error instanceof EsdbStreamDeletedError) return 'already';
        throw toStoreError(error, { streamName: stream });
      }
    },
    close: () => client.dispose(),
  };
};

export interface EsdbKeyStoreOptions {
  /** Stream names start with `$<namespace>-` (default `arbor`): several deployments on one server. */
  namespace?: string;
  cacheKeys?: number;
}

const NAMESPACE = /^[a-z][a-z0-9_]{0,31}$/;
const AT_ONCE = 32;
const KEY_TYPE = 'ArborDataKey';
const ERASED_TYPE = 'ArborKeyErased';
const INDEX_TYPE = 'ArborKeyIndexed';
const MASTER_TYPE = 'ArborMasterCheck';
const MASTER_CHECK = Buffer.from('arbor-master-check/1', 'utf8');

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

const inBatches = async <T, R>(items: readonly T[], run: (item: T) => Promise<R>): Promise<R[]> => {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += AT_ONCE) {
    out.push(...(await Promise.all(items.slice(i, i + AT_ONCE).map(run))));
  }
  return out;
};

export const openKeyStreamsKeyStore = (
  streams: KeyStreams,
  masterKey: Buffer,
  options: EsdbKeyStoreOptions = {},
): KeyStore => {
  if (masterKey.length !== KEY_BYTES) throw new TypeError('the master key must be 32 bytes');
  const ns = options.namespace ?? 'arbor';
  if (!NAMESPACE.test(ns)) {
    throw new TypeError(`key store namespace must match ${NAMESPACE}, got ${JSON.stringify(ns)}`);
  }
  const keyStream = (stream: string) => `$${ns}-key-${stream}`;
  const recordStream = (stream: string) => `$${ns}-erased-${stream}`;
  const keysIndex = `$${ns}-keys`;
  const erasuresIndex = `$${ns}-erasures`;
  const masterStream = `$${ns}-master`;
  const wrapNew = newWrappedKey(masterKey);
  const cache = new LRUCache<string, Buffer>({ max: options.cacheKeys ?? 10_000 });
  const erased = new LRUCache<string, ErasureRecord>({ max: 100_000 });
  let closed = false;

  const checkMaster = async (): Promise<void> => {
    let stored = await streams.first(masterStream);
    if (stored === null) {
      const check = seal(masterKey, MASTER_CHECK, Buffer.from(masterStream, 'utf8'));
      await streams.append(
        masterStream,
        MASTER_TYPE,
        { v: 1, check: check.toString('base64') },
        'no_stream',
      );
      stored = await streams.first(masterStream);
    }
    const check = isObject(stored) ? str(stored.check) : '';
    try {
      const opened = open(
        masterKey,
        Buffer.from(check, 'base64'),
        Buffer.from(masterStream, 'utf8'),
      );
      if (!opened.equals(MASTER_CHECK)) throw new Error('check value differs');
    } catch (e) {
      throw new KeyUnwrapError(masterStream, e);
    }
  };
  let ready: Promise<void> | null = null;
  const whenReady = (): Promise<void> => {
    if (closed) return Promise.reject(new Error('the key store is closed'));
    ready ??= checkMaster().catch((e: unknown) => {
      ready = null;
      throw e;
    });
    return ready;
  };

  const dropCached = (stream: string): void => {
    const key = cache.get(stream);
    cache.delete(stream);
    key?.fill(0);
  };

  const recordOf = (stream: string, data: unknown): ErasureRecord | null =>
    isObject(data)
      ? {
          stream,
          erasedAt: str(data.erasedAt),
          actor: str(data.actor),
          reason: str(data.reason),
        }
      : null;

  const rememberErased = (record: ErasureRecord): void => {
    erased.set(record.stream, record);
    dropCached(record.stream);
  };

  const existingKey = async (stream: string): Promise<Buffer | 'erased' | null> => {
    await whenReady();
    if (erased.has(stream)) return 'erased';
    const [key, record] = await Promise.all([
      streams.first(keyStream(stream)),
      streams.first(recordStream(stream)),
    ]);
    const erasure = record === DELETED ? null : recordOf(stream, record);
    if (erasure !== null) {
      rememberErased(erasure);
      // An erasure interrupted between its record and its tombstone: finish it.
      if (key !== null && key !== DELETED) {
        await streams.tombstone(keyStream(stream)).catch(() => undefined);
      }
      return 'erased';
    }
    if (key === DELETED) {
      dropCached(stream);
      return 'erased';
    }
    if (key === null) {
      dropCached(stream);
      return null;
    }
    const cached = cache.get(stream);
    if (cached !== undefined) return cached;
    const wrapped = isObject(key) ? str(key.wrapped) : '';
    const unwrapped = unwrapKey(masterKey, stream, Buffer.from(wrapped, 'base64'));
    cache.set(stream, unwrapped);
    return unwrapped;
  };

  const erasure = async (stream: string): Promise<ErasureRecord | null> => {
    await whenReady();
    const known = erased.get(stream);
    if (known !== undefined) return known;
    const data = await streams.first(recordStream(stream));
    const record = data === DELETED ? null : recordOf(stream, data);
    if (record !== null) rememberErased(record);
    return record;
  };

  const distinctIn = async (index: string, prefix = ''): Promise<string[]> => {
    const names = new Set<string>();
    for (const data of await streams.all(index)) {
      const stream = isObject(data) ? str(data.stream) : '';
      if (stream !== '' && stream.startsWith(prefix)) names.add(stream);
    }
    return [...names].sort();
  };

  return {
    async keyFor(stream) {
      const existing = await existingKey(stream);
      if (existing === 'erased') throw new ContentErasedError(stream);
      if (existing !== null) return existing;
      await streams.append(keysIndex, INDEX_TYPE, { stream }, 'any');
      const wrapped = wrapNew(stream).toString('base64');
      const r = await streams.append(
        keyStream(stream),
        KEY_TYPE,
        { v: 1, stream, wrapped },
        'no_stream',
      );
      if (r === DELETED) throw new ContentErasedError(stream);
      // Ours, or the one another process stored first ('exists'): the stored one wins.
      const again = await existingKey(stream);
      if (again === 'erased') throw new ContentErasedError(stream);
      if (again === null) throw new Error(`key store: no key for ${stream} after creating it`);
      return again;
    },
    existingKey,
    dropCached,
    async erase(stream, record) {
      await whenReady();
      dropCached(stream);
      const full: ErasureRecord = { stream, ...record };
      await streams.append(erasuresIndex, INDEX_TYPE, { stream }, 'any');
      const r = await streams.append(
        recordStream(stream),
        ERASED_TYPE,
        { stream, erasedAt: full.erasedAt, actor: full.actor, reason: full.reason },
        'no_stream',
      );
      await streams.tombstone(keyStream(stream));
      const stored =
        r === 'appended'
          ? full
          : (recordOf(stream, await streams.first(recordStream(stream))) ?? full);
      rememberErased(stored);
      return r === 'appended';
    },
    erasure,
    // An operator's call: the erasures index, then one read per matching stream.
    async erasures(prefix) {
      await whenReady();
      const found = await inBatches(await distinctIn(erasuresIndex, prefix), erasure);
      return found.filter((r): r is ErasureRecord => r !== null);
    },
    // An operator's call: the keys index, then two reads per key.
    async liveKeys() {
      await whenReady();
      const live = await inBatches(await distinctIn(keysIndex), async (stream) => {
        if (erased.has(stream)) return false;
        const [key, record] = await Promise.all([
          streams.first(keyStream(stream)),
          streams.first(recordStream(stream)),
        ]);
        return key !== null && key !== DELETED && (record === null || record === DELETED);
      });
      return live.filter(Boolean).length;
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const key of cache.values()) key.fill(0);
      cache.clear();
      await streams.close();
    },
  };
};

/** The key store at `connectionString`; its user must be allowed to write `$`-streams. */
export const openEventStoreDbKeyStore = (
  connectionString: string,
  masterKey: Buffer,
  options: EsdbKeyStoreOptions = {},
): KeyStore => {
  let client: EventStoreDBClient;
  try {
    client = EventStoreDBClient.connectionString(connectionString);
  } catch (error) {
    throw toStoreError(error);
  }
  return openKeyStreamsKeyStore(esdbKeyStreams(client), masterKey, options);
};
