/**
 * Tampering with a real SQLite log, as someone with the file would: drop the append-only triggers,
 * then edit, delete, move or insert rows. `verifyStore` must name each kind at the right position.
 */
import { randomUUID } from 'node:crypto';
import { type EventStore } from '@arbor/event-store';
import { chainHash } from './chain';
import { withHashChain } from './hash-chain-store';
import { openAttacker, type Attacker, type Row } from './testing/attacker';
import { tempLog, type TempLog } from './testing/temp-store';
import { writeWorkload } from './testing/workload';
import { type VerifyReport, verifyStore } from './verify-log';

const secret = Buffer.from('a3'.repeat(32), 'hex');
const wrongSecret = Buffer.from('5c'.repeat(32), 'hex');

/** What a test compares: kind, position, and for removals the missing revisions. */
const summary = (report: VerifyReport) =>
  report.findings.map((f) => ({
    kind: f.kind,
    position: Number(f.position),
    ...(f.missing && { missing: [Number(f.missing.from), Number(f.missing.to)] }),
  }));

describe('verifyStore on a tampered SQLite log', () => {
  let log: TempLog;
  let streams: string[];
  let attacker: Attacker;

  const verify = async (key = secret): Promise<VerifyReport> => {
    attacker.close();
    const store: EventStore = log.open();
    try {
      return await verifyStore(store, key, { pageSize: 7 });
    } finally {
      await store.close();
    }
  };

  beforeEach(async () => {
    log = tempLog();
    const raw = log.open();
    streams = await writeWorkload(withHashChain(raw, secret), {
      streams: 4,
      turns: 24,
      perTurn: 3,
    });
    await raw.close();
    attacker = openAttacker(log.file);
  });

  afterEach(() => {
    if (attacker.db.open) attacker.close();
    log.cleanup();
  });

  it('reports nothing on the untampered log, across page boundaries', async () => {
    const report = await verify();
    expect(report.ok).toBe(true);
    expect(report.findings).toEqual([]);
    expect(report).toMatchObject({ events: 72, chained: 72, streams: 4 });
    expect(report.unchained.count).toBe(0);
    expect(report.totals).toEqual({ modified: 0, removed: 0, reordered: 0, inserted: 0 });
    expect(report.eventsPerSecond).toBeGreaterThan(0);
  });

  it('reports every event as modified under another secret (the chain needs the same secret)', async () => {
    const report = await verify(wrongSecret);
    expect(report.totals.modified).toBe(72);
  });

  it('modified: an edited data field', async () => {
    const target = attacker.at(streams[1], 4);
    attacker.setData(target.position, target.data.replace('some words', 'other words'));
    expect(summary(await verify())).toEqual([{ kind: 'modified', position: target.position }]);
  });

  it('modified: an edited type, actor, or a chain rewritten without the secret', async () => {
    const a = attacker.at(streams[0], 2);
    const b = attacker.at(streams[2], 7);
    const c = attacker.at(streams[3], 17); // the last event of its stream
    attacker.db
      .prepare('UPDATE events SET type = ? WHERE position = ?')
      .run('TipMoved', a.position);
    attacker.setMetadata(b.position, b.metadata.replace('"actor":"key_1"', '"actor":"key_2"'));
    const meta = JSON.parse(c.metadata) as { chain: { hash: string } };
    meta.chain.hash = 'f'.repeat(64);
    attacker.setMetadata(c.position, JSON.stringify(meta));
    expect(summary(await verify())).toEqual([
      { kind: 'modified', position: a.position },
      { kind: 'modified', position: b.position },
      { kind: 'modified', position: c.position },
    ]);
  });

  it('removed: a deleted event, reported at the next event of its stream', async () => {
    const gone = attacker.at(streams[2], 5);
    const next = attacker.at(streams[2], 6);
    attacker.delete(gone.position);
    expect(summary(await verify())).toEqual([
      { kind: 'removed', position: next.position, missing: [5, 5] },
    ]);
  });

  it('removed: a deleted first event, and a deleted event with everything after it renumbered', async () => {
    const first = attacker.at(streams[0], 0);
    const secondOfStream0 = attacker.at(streams[0], 1);
    attacker.delete(first.position);
    const gone = attacker.at(streams[3], 8);
    const next = attacker.at(streams[3], 9);
    attacker.deleteAndClose(gone.position);
    // Every later position and revision moved down by one, so the log looks gap-free.
    expect(summary(await verify())).toEqual([
      { kind: 'removed', position: secondOfStream0.position, missing: [0, 0] },
      { kind: 'removed', position: next.position - 1, missing: [8, 8] },
    ]);
  });

  it('reordered: two events of one stream whose positions were swapped', async () => {
    const b = attacker.at(streams[1], 6);
    const c = attacker.at(streams[1], 7);
    attacker.swapPositions(b.position, c.position);
    // Revision 7 now sits at b's old position, before revision 6.
    expect(summary(await verify())).toEqual([{ kind: 'reordered', position: b.position }]);
  });

  it('reordered: two events far apart in a stream, positions swapped', async () => {
    const b = attacker.at(streams[0], 3);
    const c = attacker.at(streams[0], 15);
    attacker.swapPositions(b.position, c.position);
    // Revision 15 comes too early, revision 3 too late: both are named, nothing in between.
    expect(summary(await verify())).toEqual([
      { kind: 'reordered', position: b.position },
      { kind: 'reordered', position: c.position },
    ]);
  });

  it('reordered: two events whose revision numbers were swapped', async () => {
    const b = attacker.at(streams[2], 10);
    const c = attacker.at(streams[2], 11);
    attacker.swapRevisions(streams[2], 10, 11);
    expect(summary(await verify())).toEqual([
      { kind: 'reordered', position: b.position },
      { kind: 'reordered', position: c.position },
    ]);
  });

  const forgedFields = (before: Row, stream: string) => ({
    type: 'MessageAppended',
    data: JSON.stringify({ messageId: 'forged', role: 'assistant', content: [] }),
    metadata: { tenantId: 'tenant1', actor: 'key_1', timestamp: '2025-01-01T00:00:09.000Z' },
    eventId: randomUUID(),
    stream,
    revision: BigInt(before.revision + 1),
    prev: (JSON.parse(before.metadata) as { chain: { hash: string } }).chain.hash,
  });

  it('inserted: a forged event chained with the wrong secret, later events renumbered', async () => {
    const before = attacker.at(streams[1], 3);
    const f = forgedFields(before, streams[1]);
    const hash = chainHash(wrongSecret, {
      streamName: f.stream,
      revision: f.revision,
      eventId: f.eventId,
      type: f.type,
      data: JSON.parse(f.data),
      metadata: f.metadata,
      prev: f.prev,
    });
    const position = attacker.insertAfter(streams[1], 3, {
      type: f.type,
      data: f.data,
      eventId: f.eventId,
      metadata: JSON.stringify({ ...f.metadata, chain: { v: 1, prev: f.prev, hash } }),
    });
    expect(summary(await verify())).toEqual([{ kind: 'inserted', position }]);
  });

  it("inserted: a forged event carrying a copy of its neighbour's chain", async () => {
    const before = attacker.at(streams[3], 9);
    const neighbour = attacker.at(streams[3], 10);
    const f = forgedFields(before, streams[3]);
    const chain = (JSON.parse(neighbour.metadata) as { chain: unknown }).chain;
    const position = attacker.insertAfter(streams[3], 9, {
      type: f.type,
      data: f.data,
      metadata: JSON.stringify({ ...f.metadata, chain }),
    });
    expect(summary(await verify())).toEqual([{ kind: 'inserted', position }]);
  });

  it("inserted: a forged event carrying a copy of its predecessor's chain", async () => {
    const before = attacker.at(streams[0], 12);
    const f = forgedFields(before, streams[0]);
    const chain = (JSON.parse(before.metadata) as { chain: unknown }).chain;
    const position = attacker.insertAfter(streams[0], 12, {
      type: f.type,
      data: f.data,
      metadata: JSON.stringify({ ...f.metadata, chain }),
    });
    expect(summary(await verify())).toEqual([{ kind: 'inserted', position }]);
  });

  it('reports each kind at once when several streams are tampered with', async () => {
    const edited = attacker.at(streams[0], 5);
    attacker.setData(edited.position, edited.data.replace('some words', 'some word'));
    const gone = attacker.at(streams[1], 2);
    const afterGone = attacker.at(streams[1], 3);
    attacker.delete(gone.position);
    const b = attacker.at(streams[2], 4);
    const c = attacker.at(streams[2], 5);
    attacker.swapPositions(b.position, c.position);
    const report = await verify();
    expect(summary(report)).toEqual([
      { kind: 'modified', position: edited.position },
      { kind: 'removed', position: afterGone.position, missing: [2, 2] },
      { kind: 'reordered', position: b.position },
    ]);
    expect(report.ok).toBe(false);
    expect(report.totals).toEqual({ modified: 1, removed: 1, reordered: 1, inserted: 0 });
  });
});
