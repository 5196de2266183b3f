/** Test helpers: a fresh SQLite log in a temp dir, and a per-stream check of the chain. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type RecordedEvent } from '@arbor/event-store';
import { openSqliteEventStore, type SqliteEventStore } from '@arbor/event-store/sqlite';
import { chainHash, readChain, withoutChain } from '../chain';

export interface TempLog {
  dir: string;
  file: string;
  open(): SqliteEventStore;
  cleanup(): void;
}

export const tempLog = (): TempLog => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-'));
  const file = path.join(dir, 'events.sqlite');
  return {
    dir,
    file,
    open: () => openSqliteEventStore({ path: file, synchronous: 'OFF' }),
    cleanup: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
};

/** Every event links to its predecessor's hash and its hash recomputes (throws on the first that does not). */
export const assertChained = (events: readonly RecordedEvent[], secret: Buffer): void => {
  const last = new Map<string, string | null>();
  for (const event of events) {
    const state = readChain(event.metadata);
    if (state.kind !== 'link') {
      throw new Error(`event at ${event.position} has no chain (${state.kind})`);
    }
    const prev = last.get(event.streamName) ?? null;
    if (state.link.prev !== prev) throw new Error(`event at ${event.position}: prev does not link`);
    const hash = chainHash(secret, {
      streamName: event.streamName,
      revision: event.revision,
      eventId: event.id,
      type: event.type,
      data: event.data,
      metadata: withoutChain(event.metadata),
      prev,
    });
    if (hash !== state.link.hash)
      throw new Error(`event at ${event.position}: hash does not verify`);
    last.set(event.streamName, hash);
  }
};
