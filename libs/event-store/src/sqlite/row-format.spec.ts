import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { type EventMetadata } from '../types';
import { decodeMetadata, encodeMetadata } from './row-format';
import { SCHEMA_VERSION } from './schema';
import { openSqliteEventStore } from './sqlite-event-store';

const H1 = 'ab'.repeat(32);
const H2 = '0f'.repeat(32);

const base = {
  tenantId: 't1',
  actor: 'key:abc',
  timestamp: '2026-01-01T00:00:00.000Z',
  correlationId: 'c0a80121-0000-4000-8000-000000000001',
  causationId: 'c0a80121-0000-4000-8000-000000000001',
};

const roundTrip = (metadata: object): string => {
  const stored = encodeMetadata(metadata, 0);
  return JSON.stringify(
    decodeMetadata(stored.format, stored.metadata, stored.chainPrev, stored.chainHash),
  );
};

describe('row format 2 (metadata)', () => {
  it('reads back the JSON text of the metadata as appended, key order included', () => {
    const cases: object[] = [
      { ...base, chain: { v: 1, prev: null, hash: H1 } },
      { ...base, chain: { v: 1, prev: H1, hash: H2 } },
      { timestamp: 't', extra: { nested: [1, 'x'] }, tenantId: 'a', actor: 'b' },
      // A chain that is not a link of the known shape, or not last, stays in the JSON as it is.
      { ...base, chain: { v: 2, prev: null, hash: H1 } },
      { ...base, chain: { prev: null, v: 1, hash: H1 } },
      { chain: { v: 1, prev: null, hash: H1 }, ...base },
      { ...base, chain: { v: 1, prev: null, hash: H1.toUpperCase() } },
      { ...base, skipped: undefined, date: new Date(0) },
      { ...base, causationId: 'another' },
      { causationId: base.causationId, correlationId: base.correlationId },
      { correlationId: 7, causationId: 7 },
      JSON.parse('{"__proto__":{"x":1},"tenantId":"t"}') as object,
      {},
    ];
    for (const metadata of cases) expect(roundTrip(metadata)).toBe(JSON.stringify(metadata));
  });

  it('stores the chain link as 32 raw bytes and no field name of the common keys', () => {
    const metadata = { ...base, chain: { v: 1, prev: H1, hash: H2 } };
    const stored = encodeMetadata(metadata, 0);
    expect(stored.format).toBe(2);
    expect(stored.chainPrev?.toString('hex')).toBe(H1);
    expect(stored.chainHash?.toString('hex')).toBe(H2);
    expect(stored.metadata).not.toMatch(/tenantId|actor|timestamp|correlationId|chain/);
    // Format 1 stored the JSON text: the common keys' names and the link in hex.
    expect(stored.metadata.length + 64).toBeLessThan(JSON.stringify(metadata).length * 0.6);
  });
});

describe('a log file of schema version 1', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-rowformat-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('keeps its rows (format 1) readable beside new format 2 rows', async () => {
    const file = path.join(dir, 'events.sqlite');
    const v1 = new Database(file);
    v1.exec(`CREATE TABLE events (
      position INTEGER PRIMARY KEY, stream TEXT NOT NULL, revision INTEGER NOT NULL,
      event_id TEXT NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL, metadata TEXT NOT NULL,
      created INTEGER NOT NULL, UNIQUE (stream, revision), UNIQUE (event_id));
      PRAGMA user_version = 1;`);
    const old = { ...base, chain: { v: 1, prev: null, hash: H1 } };
    v1.prepare(
      `INSERT INTO events (stream, revision, event_id, type, data, metadata, created)
       VALUES ('s-1', 0, 'c0a80121-0000-4000-8000-00000000000a', 'A', '{"x":1}', ?, 0)`,
    ).run(JSON.stringify(old));
    v1.close();

    const store = openSqliteEventStore({ path: file });
    const next = { ...base, chain: { v: 1, prev: H1, hash: H2 } };
    await store.appendToStream('s-1', [{ type: 'B', data: { y: 2 }, metadata: next }], {
      expectedRevision: 0n,
    });
    const events = await store.readStream('s-1');
    await store.close();
    expect(events.map((e) => JSON.stringify(e.metadata))).toEqual([
      JSON.stringify(old),
      JSON.stringify(next as EventMetadata),
    ]);

    const db = new Database(file, { readonly: true });
    const rows = db
      .prepare('SELECT format, chain_prev, chain_hash FROM events ORDER BY position')
      .all() as { format: number; chain_prev: Buffer | null; chain_hash: Buffer | null }[];
    expect(Number(db.pragma('user_version', { simple: true }))).toBe(SCHEMA_VERSION);
    db.close();
    expect(rows.map((r) => r.format)).toEqual([1, 2]);
    expect([rows[0].chain_prev, rows[0].chain_hash]).toEqual([null, null]);
    expect(rows[1].chain_hash?.length).toBe(32);
    expect(rows[1].chain_prev?.length).toBe(32);
  });
});
