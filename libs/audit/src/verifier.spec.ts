import { type RecordedEvent } from '@arbor/event-store';
import { chainHash, withoutChain } from './chain';
import { chainedLog, move, renumberPositions } from './testing/memory-log';
import { createVerifier } from './verifier';
import { verifyLog } from './verify-log';

const secret = Buffer.alloc(32, 1);

const verify = (events: readonly RecordedEvent[], options = {}) => {
  const verifier = createVerifier(secret, options);
  for (const event of events) verifier.add(event);
  return verifier.finish();
};

const kinds = (events: readonly RecordedEvent[]) =>
  verify(events).findings.map((f) => [f.kind, Number(f.position)]);

/** Ten events of stream `s`, interleaved with one of `o` after every second one. */
const order = Array.from({ length: 15 }, (_, i) => (i % 3 === 2 ? 'o' : 's'));
const log = chainedLog(secret, order);
const sAt = (revision: number) =>
  log.findIndex((e) => e.streamName === 's' && e.revision === BigInt(revision));

describe('createVerifier', () => {
  it('finds nothing on a clean log and counts events, streams and chained events', () => {
    expect(verify(log)).toMatchObject({
      ok: true,
      events: 15,
      chained: 15,
      streams: 2,
      findings: [],
      firstPosition: 1n,
      lastPosition: 15n,
    });
  });

  it('counts events written before the chain as a warning, and accepts the chain that follows', () => {
    const old = log.slice(0, 3).map((e) => ({ ...e, metadata: withoutChain(e.metadata) }));
    const first = { ...log[3], streamName: 's', revision: 2n };
    const hash = chainHash(secret, {
      streamName: 's',
      revision: 2n,
      eventId: first.id,
      type: first.type,
      data: first.data,
      metadata: withoutChain(first.metadata),
      prev: null,
    });
    const chainedAfter = {
      ...first,
      metadata: { ...first.metadata, chain: { v: 1, prev: null, hash } },
    };
    const report = verify([...old, chainedAfter] as RecordedEvent[]);
    expect(report.ok).toBe(true);
    expect(report.unchained).toEqual({ count: 3, streams: 2, firstPosition: 1n });
  });

  it('a chain stripped from an event after chained ones is a modification, not a warning', () => {
    const i = sAt(4);
    const stripped = log.map((e, j) =>
      j === i ? { ...e, metadata: withoutChain(e.metadata) } : e,
    );
    expect(kinds(stripped as RecordedEvent[])).toEqual([['modified', i + 1]]);
  });

  it('a malformed chain is a modification', () => {
    const i = sAt(2);
    const bad = log.map((e, j) =>
      j === i ? { ...e, metadata: { ...e.metadata, chain: { v: 2 } } } : e,
    );
    expect(kinds(bad)).toEqual([['modified', i + 1]]);
  });

  it('a forged event at the end of a stream reads as modified (nothing follows to tell)', () => {
    const last = log[sAt(9)];
    const prev = (last.metadata.chain as { hash: string }).hash;
    const forged: RecordedEvent = {
      ...last,
      id: '00000000-0000-4000-8000-0000000000ff',
      revision: 10n,
      position: 16n,
      metadata: { ...last.metadata, chain: { v: 1, prev, hash: 'e'.repeat(64) } },
    };
    expect(kinds([...log, forged])).toEqual([['modified', 16]]);
  });

  it('an event moved later (positions renumbered) is one reordered finding', () => {
    const from = sAt(3);
    const moved = move(log, from, sAt(7));
    const report = verify(moved);
    expect(report.findings).toHaveLength(1);
    expect(report.findings[0]).toMatchObject({ kind: 'reordered', revision: 3n });
    expect(report.findings[0].position).toBe(BigInt(sAt(7) + 1));
  });

  it('an event moved earlier is one reordered finding', () => {
    const report = verify(move(log, sAt(8), sAt(2)));
    expect(report.findings).toHaveLength(1);
    expect(report.findings[0]).toMatchObject({ kind: 'reordered', revision: 8n });
    expect(report.findings[0].position).toBe(BigInt(sAt(2) + 1));
  });

  it('several consecutive revisions removed are one finding with the range', () => {
    const kept = log.filter((e) => !(e.streamName === 's' && e.revision >= 3n && e.revision <= 5n));
    const report = verify(kept);
    expect(report.findings).toEqual([
      expect.objectContaining({ kind: 'removed', revision: 6n, missing: { from: 3n, to: 5n } }),
    ]);
  });

  it('removing the event before the last of a stream is found at the last one', () => {
    const kept = log.filter((e) => !(e.streamName === 's' && e.revision === 8n));
    expect(verify(kept).findings).toEqual([
      expect.objectContaining({ kind: 'removed', revision: 9n, missing: { from: 8n, to: 8n } }),
    ]);
  });

  it('a second copy of an event (same chain, another position) is inserted', () => {
    const copy = { ...log[sAt(2)], position: 16n };
    expect(kinds([...log, copy])).toEqual([['inserted', 16]]);
  });

  it('keeps at most maxFindings but counts every one', () => {
    const other = createVerifier(Buffer.alloc(32, 2), { maxFindings: 3 });
    for (const event of log) other.add(event);
    const report = other.finish();
    expect(report.findings).toHaveLength(3);
    expect(report.totals.modified).toBe(15);
    expect(report.findingsDropped).toBe(12);
    expect(report.ok).toBe(false);
  });

  it('holds a bounded number of events ahead of a stream whose chain never continues', () => {
    // Every other event of a long stream removed: each remaining one is ahead of the chain.
    const long = chainedLog(
      secret,
      Array.from({ length: 400 }, () => 'l'),
    );
    const report = verify(long.filter((e) => e.revision % 2n === 1n));
    expect(report.totals.removed).toBe(200);
    expect(report.totals.reordered + report.totals.inserted + report.totals.modified).toBe(0);
  });
});

describe('verifyLog', () => {
  it('takes events or pages, sync or async, and reports progress and a rate', async () => {
    const progress: number[] = [];
    async function* pages() {
      yield log.slice(0, 7);
      yield log.slice(7);
    }
    const report = await verifyLog(pages(), secret, { onProgress: (p) => progress.push(p.events) });
    expect(report).toMatchObject({ ok: true, events: 15 });
    expect(progress).toEqual([7, 15]);
    expect(report.eventsPerSecond).toBeGreaterThan(0);
    expect((await verifyLog(log, secret)).ok).toBe(true);
    expect((await verifyLog(renumberPositions(log.slice(1)), secret)).totals.removed).toBe(1);
  });

  it('verifies an event whose data is nested 100,000 deep (no stack depth decides)', () => {
    const [first] = chainedLog(secret, ['s']);
    const data: unknown = JSON.parse('['.repeat(100_000) + ']'.repeat(100_000));
    const metadata = withoutChain(first.metadata);
    const hash = chainHash(secret, {
      streamName: 's',
      revision: 0n,
      eventId: first.id,
      type: first.type,
      data,
      metadata,
      prev: null,
    });
    const deep = {
      ...first,
      data,
      metadata: { ...first.metadata, chain: { v: 1, prev: null, hash } },
    };
    expect(verify([deep])).toMatchObject({ ok: true, events: 1, chained: 1, findings: [] });
    // …and a change deep inside is still found.
    const changed = { ...deep, data: JSON.parse('['.repeat(100_000) + '1' + ']'.repeat(100_000)) };
    expect(verify([changed]).ok).toBe(false);
  });
});
