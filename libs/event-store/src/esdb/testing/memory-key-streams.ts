/**
 * An in-memory model of the four EventStoreDB operations the key store uses (`KeyStreams`), as we
 * believe the server behaves: "no stream" appends fail on a stream with events; a tombstoned
 * stream cannot be read, appended to or deleted again (StreamDeleted), and a stream that never
 * existed can be tombstoned. Several stores may share one model (several processes on one
 * server). It tests the key store's own logic; it cannot catch a wrong belief about the server.
 */
import { DELETED, type KeyEventData, type KeyStreams } from '../esdb-key-store';

export interface MemoryServer {
  streams: Map<string, KeyEventData[]>;
  tombstoned: Set<string>;
  /** Serialized events as the "server" stores them (for checks on bytes at rest). */
  bytesOf(stream: string): Buffer;
}

export const memoryServer = (): MemoryServer => {
  const streams = new Map<string, KeyEventData[]>();
  const tombstoned = new Set<string>();
  return {
    streams,
    tombstoned,
    bytesOf: (stream) => Buffer.from(JSON.stringify(streams.get(stream) ?? []), 'utf8'),
  };
};

/** One process's connection to `server`; each call settles after a macrotask, as a network call. */
export const memoryKeyStreams = (server: MemoryServer): KeyStreams => {
  let closed = false;
  const tick = async (): Promise<void> => {
    await new Promise((r) => setImmediate(r));
    if (closed) throw new Error('memory key streams: closed');
  };
  const copy = (data: KeyEventData): KeyEventData =>
    JSON.parse(JSON.stringify(data)) as KeyEventData;
  return {
    async first(stream) {
      await tick();
      if (server.tombstoned.has(stream)) return DELETED;
      const events = server.streams.get(stream);
      return events === undefined || events.length === 0 ? null : copy(events[0]);
    },
    async all(stream) {
      await tick();
      if (server.tombstoned.has(stream)) return [];
      return (server.streams.get(stream) ?? []).map(copy);
    },
    async append(stream, _type, data, expected) {
      await tick();
      if (server.tombstoned.has(stream)) return DELETED;
      const events = server.streams.get(stream) ?? [];
      if (expected === 'no_stream' && events.length > 0) return 'exists';
      events.push(copy(data));
      server.streams.set(stream, events);
      return 'appended';
    },
    async tombstone(stream) {
      await tick();
      if (server.tombstoned.has(stream)) return 'already';
      server.tombstoned.add(stream);
      server.streams.delete(stream);
      return DELETED;
    },
    async close() {
      closed = true;
    },
  };
};
